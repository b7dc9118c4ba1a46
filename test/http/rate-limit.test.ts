import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { fetchWithEnv } from "../helpers/app-with-env";
import { initializeRequest, type JsonRpcMessage, mcpHeaders } from "../helpers/mcp-raw";
import { type ErrorBody, readJson, uniqueRequestId, validOrder } from "../helpers/orders";
import { fakeLimiter, RETRY_AFTER } from "../helpers/rate-limits";
import { countOrdersFor } from "../helpers/rows";
import { ACME_APPROVER_TOKEN, ACME_TOKEN, GLOBEX_TOKEN } from "../helpers/tokens";

// Per-credential limits on /mcp, /api, /api/approvals and /api/audit. The
// limiter is injected (a fake that records keys and refuses on demand), so the
// 429 path is deterministic; the last test drives a real rate-limiting binding
// with a limit of 2. The per-address limits on the OAuth endpoints anyone may
// call are in oauth-rate-limit.test.ts.

const MESSAGE =
  "too many requests with this credential; wait 60 seconds and try again (the limits are per credential, set in wrangler.toml [[ratelimits]])";

function mcpRequest(token: string): Request {
  return new Request("http://localhost/mcp", {
    method: "POST",
    headers: mcpHeaders({ token }),
    body: JSON.stringify(initializeRequest(1, "2025-06-18")),
  });
}

function orderRequest(requestId: string, token?: string): Request {
  return new Request("http://localhost/api/orders", {
    method: "POST",
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(validOrder(requestId)),
  });
}

function approvalsRequest(token: string): Request {
  return new Request("http://localhost/api/approvals", { headers: { authorization: `Bearer ${token}` } });
}

function auditRequest(token: string): Request {
  return new Request("http://localhost/api/audit", { headers: { authorization: `Bearer ${token}` } });
}

describe("over the limit", () => {
  it("/mcp answers 429 with Retry-After and a JSON-RPC error body", async () => {
    const { limiter } = fakeLimiter(0);
    const response = await fetchWithEnv(mcpRequest(ACME_TOKEN), { RATE_LIMITS: "on", MCP_RATE_LIMITER: limiter });
    expect(response.status).toBe(429);
    expect(response.headers.get("retry-after")).toBe(RETRY_AFTER);
    expect(await readJson<JsonRpcMessage>(response)).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32000, message: MESSAGE },
    });
  });

  it("/api answers 429 with Retry-After and our error body, and stores nothing", async () => {
    const { limiter } = fakeLimiter(0);
    const requestId = uniqueRequestId("limited");
    const response = await fetchWithEnv(orderRequest(requestId), { RATE_LIMITS: "on", API_RATE_LIMITER: limiter });
    expect(response.status).toBe(429);
    expect(response.headers.get("retry-after")).toBe(RETRY_AFTER);
    expect(await readJson<ErrorBody>(response)).toEqual({ code: "rate_limited", message: MESSAGE });
    expect(await countOrdersFor("acme", requestId)).toBe(0);
  });

  it("/api/approvals answers 429 with Retry-After", async () => {
    const { limiter } = fakeLimiter(0);
    const response = await fetchWithEnv(approvalsRequest(ACME_APPROVER_TOKEN), {
      RATE_LIMITS: "on",
      APPROVAL_RATE_LIMITER: limiter,
    });
    expect(response.status).toBe(429);
    expect(response.headers.get("retry-after")).toBe(RETRY_AFTER);
    expect((await readJson<ErrorBody>(response)).code).toBe("rate_limited");
  });

  it("/api/audit answers 429 with Retry-After, before anything is sealed or read", async () => {
    const { limiter } = fakeLimiter(0);
    const response = await fetchWithEnv(auditRequest(ACME_APPROVER_TOKEN), {
      RATE_LIMITS: "on",
      APPROVAL_RATE_LIMITER: limiter,
    });
    expect(response.status).toBe(429);
    expect(response.headers.get("retry-after")).toBe(RETRY_AFTER);
    expect(response.headers.get("content-disposition")).toBeNull();
    expect(await readJson<ErrorBody>(response)).toEqual({ code: "rate_limited", message: MESSAGE });
  });
});

describe("what is counted", () => {
  it("the audit export and the approval API share one count per approver: an export is an approver's request like any other", async () => {
    const { limiter, seen } = fakeLimiter(1);
    const overrides = { RATE_LIMITS: "on", APPROVAL_RATE_LIMITER: limiter };
    expect((await fetchWithEnv(approvalsRequest(ACME_APPROVER_TOKEN), overrides)).status).toBe(200);
    const second = await fetchWithEnv(auditRequest(ACME_APPROVER_TOKEN), overrides);
    expect(second.status).toBe(429);
    expect([...seen.entries()]).toEqual([["acme:Avery Approver (acme, local dev)", 2]]);
  });

  it("each credential has its own count, keyed by its holder and never by the secret", async () => {
    const { limiter, seen } = fakeLimiter(1);
    const overrides = { RATE_LIMITS: "on", MCP_RATE_LIMITER: limiter };
    expect((await fetchWithEnv(mcpRequest(ACME_TOKEN), overrides)).status).toBe(200);
    expect((await fetchWithEnv(mcpRequest(GLOBEX_TOKEN), overrides)).status).toBe(200);
    expect((await fetchWithEnv(mcpRequest(ACME_TOKEN), overrides)).status).toBe(429);
    expect([...seen.keys()]).toEqual(["acme:Ada Ops (acme, local dev)", "globex:Gus Ops (globex, local dev)"]);
  });

  it("a refused credential is answered 401 and not counted", async () => {
    const { limiter, seen } = fakeLimiter(0);
    const response = await fetchWithEnv(mcpRequest("not-a-token-at-all"), {
      RATE_LIMITS: "on",
      MCP_RATE_LIMITER: limiter,
    });
    expect(response.status).toBe(401);
    expect(seen.size).toBe(0);
  });

  it("/api counts token callers by account and operator, and anonymous callers as the public account", async () => {
    const { limiter, seen } = fakeLimiter(10);
    const overrides = { RATE_LIMITS: "on", API_RATE_LIMITER: limiter };
    expect((await fetchWithEnv(orderRequest(uniqueRequestId("key-anon")), overrides)).status).toBe(201);
    expect((await fetchWithEnv(orderRequest(uniqueRequestId("key-token"), GLOBEX_TOKEN), overrides)).status).toBe(201);
    expect([...seen.keys()]).toEqual(["acme:unauthenticated intake caller", "globex:Gus Ops (globex, local dev)"]);
  });

  it("RATE_LIMITS=off (local development) never asks the limiter", async () => {
    const { limiter, seen } = fakeLimiter(0);
    expect(
      (
        await fetchWithEnv(approvalsRequest(ACME_APPROVER_TOKEN), {
          RATE_LIMITS: "off",
          APPROVAL_RATE_LIMITER: limiter,
        })
      ).status,
    ).toBe(200);
    expect(seen.size).toBe(0);
  });
});

describe("the rate-limiting binding itself", () => {
  it("with a limit of 2 per 60 s, a burst of 5 gets at least one 429 (even across a window edge) and the first passes", async () => {
    const tiny = (env as unknown as { TINY_RATE_LIMITER: RateLimit }).TINY_RATE_LIMITER;
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const response = await fetchWithEnv(approvalsRequest(ACME_APPROVER_TOKEN), {
        RATE_LIMITS: "on",
        APPROVAL_RATE_LIMITER: tiny,
      });
      statuses.push(response.status);
      await response.body?.cancel();
    }
    expect(statuses[0]).toBe(200);
    expect(statuses).toContain(429);
    expect(statuses.every((status) => status === 200 || status === 429)).toBe(true);
  });
});
