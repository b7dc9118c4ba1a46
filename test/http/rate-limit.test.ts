import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { fetchWithEnv, PRODUCTION_ENV } from "../helpers/app-with-env";
import { initializeRequest, type JsonRpcMessage, mcpHeaders } from "../helpers/mcp-raw";
import { type ErrorBody, readJson, uniqueRequestId, validOrder } from "../helpers/orders";
import { countOrdersFor } from "../helpers/rows";
import { ACME_APPROVER_TOKEN, ACME_TOKEN, GLOBEX_TOKEN } from "../helpers/tokens";

// Per-credential limits on /mcp, /api, /api/approvals and /api/audit, and
// per-address limits on the OAuth endpoints anyone may call. The limiter is
// injected (a fake that records keys and refuses on demand), so the 429 path
// is deterministic; the last tests drive a real rate-limiting binding with a
// limit of 2.

const RETRY_AFTER = "60";
const MESSAGE =
  "too many requests with this credential; wait 60 seconds and try again (the limits are per credential, set in wrangler.toml [[ratelimits]])";

/** A stand-in for a [[ratelimits]] binding: counts keys, allows the first `allow` calls per key. */
function fakeLimiter(allow: number) {
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

const ADDRESS_MESSAGE =
  "too many requests from this address; wait 60 seconds and try again (OAuth registration and sign-in are limited per client IP, set in wrangler.toml [[ratelimits]])";

/** Cloudflare's edge sets CF-Connecting-IP; a request without it did not come through the edge. */
const from = (ip: string | undefined): Record<string, string> => (ip === undefined ? {} : { "cf-connecting-ip": ip });

/**
 * A deployed Worker, reached through Cloudflare's edge, which sets
 * CF-Connecting-IP on every request and overwrites a client's own.
 */
const DEPLOYED = PRODUCTION_ENV.PUBLIC_BASE_URL;

function registerRequest(ip?: string, base = DEPLOYED): Request {
  return new Request(`${base}/oauth/register`, {
    method: "POST",
    headers: { "content-type": "application/json", ...from(ip) },
    body: JSON.stringify({
      client_name: "Limited Client",
      redirect_uris: ["http://127.0.0.1:9999/callback"],
      token_endpoint_auth_method: "none",
    }),
  });
}

function consentRequest(method: "GET" | "POST", ip?: string, base = DEPLOYED): Request {
  const url = `${base}/authorize?response_type=code&client_id=no-such-client&redirect_uri=http%3A%2F%2F127.0.0.1%3A9999%2Fcallback`;
  if (method === "GET") return new Request(url, { headers: from(ip) });
  return new Request(url, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: base, ...from(ip) },
    body: "handle=h&decision=approve&token=guess",
  });
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

describe("before any credential: OAuth registration and the consent page, per client address", () => {
  it("POST /oauth/register answers 429 with Retry-After and our error body", async () => {
    const { limiter } = fakeLimiter(0);
    const response = await fetchWithEnv(registerRequest("203.0.113.7"), {
      ...PRODUCTION_ENV,
      RATE_LIMITS: "on",
      OAUTH_RATE_LIMITER: limiter,
    });
    expect(response.status).toBe(429);
    expect(response.headers.get("retry-after")).toBe(RETRY_AFTER);
    expect(await readJson<ErrorBody>(response)).toEqual({ code: "rate_limited", message: ADDRESS_MESSAGE });
  });

  it.each(["GET", "POST"] as const)(
    "%s /authorize answers a 429 page a person can read, still unframeable",
    async (method) => {
      const { limiter } = fakeLimiter(0);
      const response = await fetchWithEnv(consentRequest(method, "203.0.113.7"), {
        ...PRODUCTION_ENV,
        RATE_LIMITS: "on",
        OAUTH_RATE_LIMITER: limiter,
      });
      expect(response.status).toBe(429);
      expect(response.headers.get("retry-after")).toBe(RETRY_AFTER);
      expect(response.headers.get("content-type")).toMatch(/^text\/html/);
      expect(response.headers.get("x-frame-options")).toBe("DENY");
      const page = await response.text();
      expect(page).toContain("Too many tries");
      expect(page).toContain("too many requests from this address; wait 60 seconds and try again");
    },
  );

  it("each address has its own count, and registration and the consent page are counted apart", async () => {
    const { limiter, seen } = fakeLimiter(1);
    const overrides = { ...PRODUCTION_ENV, RATE_LIMITS: "on", OAUTH_RATE_LIMITER: limiter };
    expect((await fetchWithEnv(registerRequest("203.0.113.7"), overrides)).status).toBe(201);
    expect((await fetchWithEnv(registerRequest("198.51.100.2"), overrides)).status).toBe(201);
    expect((await fetchWithEnv(consentRequest("GET", "203.0.113.7"), overrides)).status).toBe(400);
    expect((await fetchWithEnv(registerRequest("203.0.113.7"), overrides)).status).toBe(429);
    expect([...seen.keys()]).toEqual(["register:203.0.113.7", "register:198.51.100.2", "consent:203.0.113.7"]);
  });

  it("without CF-Connecting-IP (called in-process, past the edge) every caller is this machine and shares one count", async () => {
    const { limiter, seen } = fakeLimiter(10);
    const overrides = { ...PRODUCTION_ENV, RATE_LIMITS: "on", OAUTH_RATE_LIMITER: limiter };
    await (await fetchWithEnv(registerRequest(), overrides)).body?.cancel();
    await (await fetchWithEnv(consentRequest("POST"), overrides)).body?.cancel();
    expect([...seen.keys()]).toEqual(["register:this-machine", "consent:this-machine"]);
  });

  it("in development nothing vouches for CF-Connecting-IP (wrangler dev passes a client's own on), so it is not read: rotating it buys no more tries", async () => {
    const { limiter, seen } = fakeLimiter(1);
    const overrides = { RATE_LIMITS: "on", OAUTH_RATE_LIMITER: limiter };
    expect((await fetchWithEnv(registerRequest("203.0.113.7", "http://localhost"), overrides)).status).toBe(201);
    for (const ip of ["10.0.0.1", "10.0.0.2", "10.0.0.3"]) {
      const response = await fetchWithEnv(registerRequest(ip, "http://localhost"), overrides);
      expect(response.status, ip).toBe(429);
    }
    await (await fetchWithEnv(consentRequest("GET", "10.0.0.4", "http://localhost"), overrides)).body?.cancel();
    expect([...seen.entries()]).toEqual([
      ["register:this-machine", 4],
      ["consent:this-machine", 1],
    ]);
  });

  it("the token endpoint and discovery are not counted: tokens come from client back ends that many people share", async () => {
    const { limiter, seen } = fakeLimiter(0);
    const overrides = { ...PRODUCTION_ENV, RATE_LIMITS: "on", OAUTH_RATE_LIMITER: limiter };
    const token = new Request(`${DEPLOYED}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", ...from("203.0.113.7") },
      body: "grant_type=refresh_token&refresh_token=x",
    });
    expect((await fetchWithEnv(token, overrides)).status).not.toBe(429);
    expect(
      (await fetchWithEnv(new Request(`${DEPLOYED}/.well-known/oauth-authorization-server`), overrides)).status,
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

describe("the OAuth limit through a real binding", () => {
  it("with a limit of 2 per 60 s, a burst of 5 registrations from one address gets at least one 429", async () => {
    const tiny = (env as unknown as { TINY_RATE_LIMITER: RateLimit }).TINY_RATE_LIMITER;
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const response = await fetchWithEnv(registerRequest("192.0.2.55"), {
        ...PRODUCTION_ENV,
        RATE_LIMITS: "on",
        OAUTH_RATE_LIMITER: tiny,
      });
      statuses.push(response.status);
      await response.body?.cancel();
    }
    expect(statuses[0]).toBe(201);
    expect(statuses).toContain(429);
    expect(statuses.every((status) => status === 201 || status === 429)).toBe(true);
  });
});
