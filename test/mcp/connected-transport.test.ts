import { type JSONRPCRequest, McpServer, WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { acceptedHeaders, ConnectedTransport } from "../../src/mcp/transport/connected-transport";
import { PROTOCOL_VERSIONS } from "../../src/mcp/transport/protocol-versions";
import { BOTH_MEDIA_TYPES, jsonAnswer, postMcp, rpc } from "../helpers/mcp-raw";
import { ACME_TOKEN } from "../helpers/tokens";

// A pooled server keeps one transport for all the requests it is lent to,
// instead of the SDK's one-shot stateless transport and a close per request.

const HTTP = new Request("http://localhost/mcp", { method: "POST" });

function echoServer(): McpServer {
  const server = new McpServer({ name: "t", version: "1" }, { supportedProtocolVersions: [...PROTOCOL_VERSIONS] });
  server.registerTool(
    "echo",
    { description: "echo", inputSchema: z.object({ text: z.string() }) },
    async ({ text }) => ({ content: [{ type: "text", text }] }),
  );
  return server;
}

const request = (id: number | string, method: string, params?: Record<string, unknown>) =>
  rpc(id, method, params) as JSONRPCRequest;

/** What the SDK's own transport answers to one request, for comparison. */
async function answeredBySdk(message: JSONRPCRequest): Promise<{ status: number; type: string | null; body: unknown }> {
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await echoServer().connect(transport);
  const response = await transport.handleRequest(
    new Request("http://localhost/mcp", {
      method: "POST",
      headers: { "content-type": "application/json", accept: BOTH_MEDIA_TYPES },
      body: JSON.stringify(message),
    }),
  );
  return { status: response.status, type: response.headers.get("content-type"), body: await response.json() };
}

describe("ConnectedTransport", () => {
  it("exists because the SDK's stateless transport serves one request only", async () => {
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await echoServer().connect(transport);
    const post = () =>
      transport.handleRequest(
        new Request("http://localhost/mcp", {
          method: "POST",
          headers: { "content-type": "application/json", accept: BOTH_MEDIA_TYPES },
          body: JSON.stringify(rpc(1, "ping")),
        }),
      );
    expect((await post()).status).toBe(200);
    await expect(post()).rejects.toThrow(/cannot be reused/);
  });

  it("serves one request after another on one connection, the same id again included, as the SDK's transport answers each", async () => {
    const transport = new ConnectedTransport();
    await echoServer().connect(transport);
    const calls = [
      request(1, "ping"),
      request(1, "tools/list"),
      request(1, "tools/call", { name: "echo", arguments: { text: "hi" } }),
      request("x", "no/such/method"),
    ];
    for (const message of calls) {
      const response = await transport.exchange(message, HTTP);
      expect({
        status: response.status,
        type: response.headers.get("content-type"),
        body: await response.json(),
      }).toEqual(await answeredBySdk(message));
    }
  });

  it("keeps serving after a tool fails", async () => {
    const transport = new ConnectedTransport();
    await echoServer().connect(transport);
    const failed = (await (
      await transport.exchange(request(7, "tools/call", { name: "echo", arguments: { text: 3 } }), HTTP)
    ).json()) as { result: { isError?: boolean } };
    expect(failed.result.isError).toBe(true);
    expect(await (await transport.exchange(request(7, "ping"), HTTP)).json()).toEqual({
      jsonrpc: "2.0",
      id: 7,
      result: {},
    });
  });

  it("refuses, as programmer error, a second request with the id of one it still serves", async () => {
    const transport = new ConnectedTransport();
    const server = echoServer();
    let release: () => void = () => undefined;
    server.registerTool("hold", { description: "hold" }, async () => {
      await new Promise<void>((resolve) => (release = resolve));
      return { content: [] };
    });
    await server.connect(transport);
    const held = transport.exchange(request(1, "tools/call", { name: "hold" }), HTTP);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(() => transport.exchange(request(1, "ping"), HTTP)).toThrow(/still served it/);
    release();
    expect((await held).status).toBe(200);
  });
});

describe("acceptedHeaders", () => {
  const headers = (values: Record<string, string>) => new Headers(values);

  it("takes what the SDK's transport would take, and nothing it would refuse", () => {
    expect(acceptedHeaders(headers({ "content-type": "application/json" }))).toBe(true);
    expect(
      acceptedHeaders(
        headers({ "content-type": "Application/JSON; charset=utf-8", "mcp-protocol-version": "2025-06-18" }),
      ),
    ).toBe(true);
    expect(acceptedHeaders(headers({ "content-type": "text/plain" }))).toBe(false);
    expect(acceptedHeaders(headers({}))).toBe(false);
    expect(acceptedHeaders(headers({ "content-type": "application/json", "mcp-protocol-version": "2024-01-01" }))).toBe(
      false,
    );
  });

  it("leaves the SDK's refusals to the SDK: an unknown revision on a lendable request is still its 400", async () => {
    const response = await postMcp(rpc(1, "ping"), {
      token: ACME_TOKEN,
      headers: { "mcp-protocol-version": "2024-01-01" },
    });
    expect(response.status).toBe(400);
    expect((await jsonAnswer(response)).error?.message).toContain("Unsupported protocol version");
  });

  it("leaves a wrong media type to the SDK too: 415", async () => {
    const response = await postMcp(JSON.stringify(rpc(1, "ping")), {
      token: ACME_TOKEN,
      headers: { "content-type": "text/plain" },
    });
    expect(response.status).toBe(415);
  });
});
