import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import app from "../../src/index";
import {
  initializeRequest,
  type JsonRpcMessage,
  mcpHeaders,
  modernHeaders,
  modernRpc,
  postMcp,
  rpc,
} from "../helpers/mcp-raw";
import { freshSeed } from "../helpers/synthetic";
import { ACME_TOKEN, PRODUCTION_TOKEN } from "../helpers/tokens";

// DNS-rebinding protection: /mcp answers only to the hostnames this Worker is
// reached by, whatever the Origin (CLI clients send none).

describe("in development (the test environment)", () => {
  it.each(["localhost", "localhost:8787", "127.0.0.1:51234", "[::1]:8787"])("Host %s is served", async (host) => {
    const response = await postMcp(initializeRequest(1, "2025-11-25"), { token: ACME_TOKEN, headers: { host } });
    expect(response.status).toBe(200);
    expect(((await response.json()) as JsonRpcMessage).result?.protocolVersion).toBe("2025-11-25");
  });

  it.each([
    ["2025-11-25", () => rpc(2, "tools/list"), {}],
    ["2026-07-28", () => modernRpc(2, "tools/list"), modernHeaders("tools/list")],
  ])(
    "at %s a rebound name (Host evil.example.com) is refused with 403 before anything runs",
    async (_version, body, headers) => {
      const response = await postMcp(body(), { token: ACME_TOKEN, headers: { ...headers, host: "evil.example.com" } });
      expect(response.status).toBe(403);
      expect(await response.json()).toEqual({
        code: "forbidden",
        message: "host evil.example.com is not one this MCP server answers to; add it to ALLOWED_HOSTS if it should be",
      });
    },
  );

  it("a refused host sends no orders", async () => {
    const seed = freshSeed();
    const call = rpc(3, "tools/call", { name: "send_orders", arguments: { count: 1, seed } });
    expect((await postMcp(call, { token: ACME_TOKEN, headers: { host: "localhost.evil.example.com" } })).status).toBe(
      403,
    );
    const replay = (await (await postMcp(call, { token: ACME_TOKEN })).json()) as JsonRpcMessage;
    expect(replay.result?.structuredContent).toMatchObject({ seed, status_counts: { "201": 1 } });
  });
});

describe("in production", () => {
  const productionEnv = {
    ...env,
    ENVIRONMENT: "production",
    PUBLIC_BASE_URL: "https://order-ops.example.workers.dev",
    ALLOWED_HOSTS: "mcp.example.com, MCP.Example.org",
    MCP_TOKENS: JSON.stringify({ [PRODUCTION_TOKEN]: { account: "acme", operator: "Prod Ops" } }),
    APPROVER_TOKENS: "",
  };

  async function post(host: string): Promise<Response> {
    const request = new Request("https://order-ops.example.workers.dev/mcp", {
      method: "POST",
      headers: { ...mcpHeaders({ token: PRODUCTION_TOKEN }), host },
      body: JSON.stringify(initializeRequest(1, "2025-11-25")),
    });
    return await app.fetch(request, productionEnv, createExecutionContext());
  }

  it.each(["order-ops.example.workers.dev", "mcp.example.com", "mcp.example.org:443"])(
    "the Worker's own host and the custom domains are served: %s",
    async (host) => {
      expect((await post(host)).status).toBe(200);
    },
  );

  it.each(["localhost", "127.0.0.1", "evil.example.com"])(
    "anything else is refused, localhost included: %s",
    async (host) => {
      expect((await post(host)).status).toBe(403);
    },
  );
});
