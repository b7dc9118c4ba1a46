import { describe, expect, it } from "vitest";
import { fetchWithEnv } from "../helpers/app-with-env";
import { type JsonRpcMessage, mcpHeaders, rpc } from "../helpers/mcp-raw";
import { readJson } from "../helpers/orders";
import { GLOBEX_TOKEN } from "../helpers/tokens";

// The per-credential limit on /mcp counts calls, not HTTP requests: a
// 2025-03-26 JSON-RPC batch of n calls uses n of the credential's share.

const KEY = "globex:Gus Ops (globex, local dev)";

/** A stand-in for MCP_RATE_LIMITER: counts each key, allows the first `allow` calls per key. */
function countingLimiter(allow: number) {
  const seen = new Map<string, number>();
  const limiter: RateLimit = {
    limit: ({ key }) => {
      const count = (seen.get(key) ?? 0) + 1;
      seen.set(key, count);
      return Promise.resolve({ success: count <= allow });
    },
  };
  return { limiter, seen };
}

function post(body: unknown): Request {
  return new Request("http://localhost/mcp", {
    method: "POST",
    headers: mcpHeaders({ token: GLOBEX_TOKEN, accept: "application/json" }),
    body: JSON.stringify(body),
  });
}

const pings = (n: number) => Array.from({ length: n }, (_, i) => rpc(i + 1, "ping"));

describe("a JSON-RPC batch is counted call by call", () => {
  it("a batch of 5 uses 5 of the share, a single message 1", async () => {
    const { limiter, seen } = countingLimiter(100);
    const overrides = { RATE_LIMITS: "on", MCP_RATE_LIMITER: limiter };
    expect((await fetchWithEnv(post(pings(5)), overrides)).status).toBe(200);
    expect(seen.get(KEY)).toBe(5);
    expect((await fetchWithEnv(post(rpc(9, "ping")), overrides)).status).toBe(200);
    expect(seen.get(KEY)).toBe(6);
  });

  it("a batch larger than what is left of the share is refused whole: 429 with Retry-After, and no call in it runs", async () => {
    const { limiter } = countingLimiter(3);
    const response = await fetchWithEnv(post(pings(4)), { RATE_LIMITS: "on", MCP_RATE_LIMITER: limiter });
    expect(response.status).toBe(429);
    expect(response.headers.get("retry-after")).toBe("60");
    const body = await readJson<JsonRpcMessage>(response);
    expect(body.error?.code).toBe(-32000);
    expect(body.error?.message).toMatch(/^too many requests with this credential; wait 60 seconds/);
  });

  it("20 send_orders calls in one batch cannot pass as one request", async () => {
    const { limiter, seen } = countingLimiter(10);
    const batch = Array.from({ length: 20 }, (_, i) =>
      rpc(i + 1, "tools/call", { name: "send_orders", arguments: { count: 1 } }),
    );
    const response = await fetchWithEnv(post(batch), { RATE_LIMITS: "on", MCP_RATE_LIMITER: limiter });
    expect(response.status).toBe(429);
    // Counting stops at the first call over the share.
    expect(seen.get(KEY)).toBe(11);
  });
});
