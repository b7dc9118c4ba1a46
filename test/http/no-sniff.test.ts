import { describe, expect, it } from "vitest";
import { fetchWithEnv } from "../helpers/app-with-env";
import { workerFetch } from "../helpers/mcp-client";
import { postMcp, rpc } from "../helpers/mcp-raw";
import { ACME_APPROVER_TOKEN, ACME_TOKEN } from "../helpers/tokens";

// Every answer tells the browser not to guess its type
// (X-Content-Type-Options: nosniff, from hono/secure-headers in
// src/http/page-headers.ts): the JSON ones, whichever code drew them (our
// routes, the MCP SDK, the OAuth library, the error handlers).

function expectNoSniff(response: Response, what: string): void {
  expect(response.headers.get("x-content-type-options"), what).toBe("nosniff");
}

describe("JSON answers carry nosniff", () => {
  it.each([
    ["/health", {}],
    ["/api/health", {}],
    ["/.well-known/oauth-authorization-server", {}],
    ["/.well-known/oauth-protected-resource/mcp", {}],
    ["/no/such/route", {}],
    ["/api/orders/ORD-1001", { authorization: `Bearer ${ACME_TOKEN}` }],
    ["/api/approvals", { authorization: `Bearer ${ACME_APPROVER_TOKEN}` }],
    ["/oauth/grants", { authorization: `Bearer ${ACME_TOKEN}` }],
    ["/oauth/grants", {}],
  ])("GET %s", async (path, headers) => {
    const response = await workerFetch(`http://localhost${path}`, { headers });
    expect(response.headers.get("content-type")).toMatch(/json/);
    expectNoSniff(response, path);
  });

  it("/mcp: a JSON-RPC answer from the SDK, a refusal before it, and a 401", async () => {
    expectNoSniff(await postMcp(rpc(1, "ping"), { token: ACME_TOKEN, accept: "application/json" }), "ping");
    expectNoSniff(await postMcp("{not json", { token: ACME_TOKEN }), "parse error");
    expectNoSniff(await postMcp(rpc(2, "ping")), "no token");
  });

  it("/mcp over the rate limit (a 429 drawn before the SDK loads)", async () => {
    const refuseAll: RateLimit = { limit: () => Promise.resolve({ success: false }) };
    const request = new Request("http://localhost/mcp", {
      method: "POST",
      headers: {
        authorization: `Bearer ${ACME_TOKEN}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify(rpc(3, "ping")),
    });
    const response = await fetchWithEnv(request, { RATE_LIMITS: "on", MCP_RATE_LIMITER: refuseAll });
    expect(response.status).toBe(429);
    expectNoSniff(response, "429");
  });

  it("nosniff and nothing more: hono/secure-headers' other defaults stay off JSON answers, as before it set this one", async () => {
    const response = await workerFetch("http://localhost/health");
    expectNoSniff(response, "/health");
    for (const name of [
      "x-frame-options",
      "strict-transport-security",
      "referrer-policy",
      "cross-origin-opener-policy",
      "cross-origin-resource-policy",
      "origin-agent-cluster",
      "x-xss-protection",
    ])
      expect(response.headers.get(name), name).toBeNull();
  });

  it("/oauth/token: the OAuth library's error answer", async () => {
    const response = await workerFetch("http://localhost/oauth/token", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "grant_type=refresh_token&refresh_token=a:b:c&client_id=nobody",
    });
    expect(response.status).toBeGreaterThanOrEqual(400);
    expectNoSniff(response, "token");
  });
});
