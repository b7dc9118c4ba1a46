import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import type { JSONRPCRequest } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import app from "../../src/index";
import { isWholeToolList, keepToolList, keptToolList, listingKey } from "../../src/mcp/transport/tool-list-cache";
import { MCP_URL } from "../helpers/mcp-client";
import { type JsonRpcMessage, mcpHeaders, rpc } from "../helpers/mcp-raw";
import { ACME_TOKEN, READER_TOKEN } from "../helpers/tokens";

// A 2025 tools/list is answered from the kept bytes of the SDK's first answer
// for the same configuration, tools and scopes. What a client reads must be
// what the SDK answers, id and all, and each credential's list stays its own.

const request = (id: number | string, params?: Record<string, unknown>) =>
  rpc(id, "tools/list", params) as JSONRPCRequest;
const answer = (id: number | string, body: Record<string, unknown>) => Response.json({ jsonrpc: "2.0", id, ...body });
const JSON_HEADERS = new Headers({ "content-type": "application/json", "mcp-protocol-version": "2025-11-25" });

describe("the kept listing", () => {
  it("is the SDK's result behind each request's own id", async () => {
    const config = {};
    const key = listingKey(config, ["a", "b"], ["orders:read"]);
    expect(keptToolList(key, request(1), JSON_HEADERS)).toBeUndefined();
    await keepToolList(key, answer(1, { result: { tools: [{ name: "t", description: "“quoted” ü" }] } }));
    const second = keptToolList(key, request("two ✓"), JSON_HEADERS);
    expect(second?.headers.get("content-type")).toBe("application/json");
    expect(await second?.json()).toEqual({
      jsonrpc: "2.0",
      id: "two ✓",
      result: { tools: [{ name: "t", description: "“quoted” ü" }] },
    });
    // Another configuration, or another set of tools or scopes, has a listing of its own.
    expect(keptToolList({ ...key, config: {} }, request(3), JSON_HEADERS)).toBeUndefined();
    expect(keptToolList(listingKey(config, ["a"], ["orders:read"]), request(3), JSON_HEADERS)).toBeUndefined();
    expect(keptToolList(listingKey(config, ["a", "b"], ["orders:write"]), request(3), JSON_HEADERS)).toBeUndefined();
  });

  it("is not given where the SDK would refuse the request: an unknown revision, a body not sent as JSON", async () => {
    const key = { config: {}, seen: "k" };
    await keepToolList(key, answer(1, { result: { tools: [] } }));
    expect(keptToolList(key, request(2), JSON_HEADERS)).toBeDefined();
    expect(keptToolList(key, request(2), new Headers({ "content-type": "application/json" }))).toBeDefined();
    const unknownRevision = new Headers({ "content-type": "application/json", "mcp-protocol-version": "1999-01-01" });
    expect(keptToolList(key, request(2), unknownRevision)).toBeUndefined();
    expect(keptToolList(key, request(2), new Headers({ "content-type": "text/plain" }))).toBeUndefined();
  });

  it("keeps nothing from an error", async () => {
    const key = { config: {}, seen: "k" };
    await keepToolList(key, answer(1, { error: { code: -32603, message: "no" } }));
    await keepToolList(key, new Response("event: message\n\n", { headers: { "content-type": "text/event-stream" } }));
    expect(keptToolList(key, request(2), JSON_HEADERS)).toBeUndefined();
  });

  it("names its key by the tools in order and the scopes in any order", () => {
    const config = {};
    expect(listingKey(config, ["a", "b"], ["y", "x"]).seen).toBe(listingKey(config, ["a", "b"], ["x", "y"]).seen);
    expect(listingKey(config, ["a", "b"], ["x"]).seen).not.toBe(listingKey(config, ["b", "a"], ["x"]).seen);
  });

  it.each([
    [undefined, true],
    [{}, true],
    [{ cursor: "abc" }, false],
    [{ _meta: {} }, false],
  ])("a listing with params %j is whole: %s", (params, whole) => {
    expect(isWholeToolList(request(1, params))).toBe(whole);
    expect(isWholeToolList(rpc(1, "prompts/list"))).toBe(false);
  });
});

describe("tools/list through the Worker", () => {
  // A fresh env object is a fresh configuration, and with it nothing kept.
  const freshEnv = () =>
    ({
      ...env,
      MCP_TOKENS: JSON.stringify({
        [ACME_TOKEN]: { account: "acme", operator: "Ada" },
        [READER_TOKEN]: { account: "acme", operator: "Reader", scopes: ["orders:read"] },
      }),
    }) as Env;

  async function list(
    workerEnv: Env,
    token: string,
    id: number | string,
    params?: Record<string, unknown>,
  ): Promise<{ response: Response; message: JsonRpcMessage }> {
    const response = await app.fetch(
      new Request(MCP_URL, {
        method: "POST",
        headers: mcpHeaders({ token, headers: { "mcp-protocol-version": "2025-11-25" } }),
        body: JSON.stringify(rpc(id, "tools/list", params)),
      }),
      workerEnv,
      createExecutionContext(),
    );
    return { response, message: (await response.clone().json()) as JsonRpcMessage };
  }

  it("a kept answer is the SDK's answer with its own id, and each credential keeps its own list", async () => {
    const workerEnv = freshEnv();
    const first = await list(workerEnv, ACME_TOKEN, 1);
    const kept = await list(workerEnv, ACME_TOKEN, "second");
    // _meta makes it no whole listing: the SDK answers it, as it answered the first.
    const bySdk = await list(workerEnv, ACME_TOKEN, 3, { _meta: {} });
    expect(kept.message.id).toBe("second");
    expect(kept.message.result).toEqual(first.message.result);
    expect(kept.message.result).toEqual(bySdk.message.result);
    expect(kept.response.headers.get("content-type")).toBe(first.response.headers.get("content-type"));
    expect(kept.response.headers.get("x-content-type-options")).toBe("nosniff");

    const names = (message: JsonRpcMessage) =>
      (message.result?.tools as { name: string }[] | undefined)?.map((tool) => tool.name);
    const reader = await list(workerEnv, READER_TOKEN, 4);
    const readerKept = await list(workerEnv, READER_TOKEN, 5);
    expect(readerKept.message.result).toEqual(reader.message.result);
    expect(names(reader.message)).not.toEqual(names(first.message));
    expect(names(reader.message)).not.toContain("send_orders");
    expect(names((await list(workerEnv, ACME_TOKEN, 6)).message)).toContain("send_orders");
  });

  it("once a listing is kept, a request the SDK refuses is still refused by the SDK", async () => {
    const workerEnv = freshEnv();
    await list(workerEnv, ACME_TOKEN, 1);
    expect((await list(workerEnv, ACME_TOKEN, 2)).response.status).toBe(200);
    const refused = await app.fetch(
      new Request(MCP_URL, {
        method: "POST",
        headers: mcpHeaders({ token: ACME_TOKEN, headers: { "mcp-protocol-version": "1999-01-01" } }),
        body: JSON.stringify(rpc(3, "tools/list")),
      }),
      workerEnv,
      createExecutionContext(),
    );
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as JsonRpcMessage).error?.message).toContain("Unsupported protocol version");
  });
});
