import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { fetchWithEnv, PRODUCTION_ENV } from "../helpers/app-with-env";
import { type ErrorBody, readJson } from "../helpers/orders";
import { fakeLimiter, RETRY_AFTER } from "../helpers/rate-limits";

// Per-address limits on the OAuth endpoints anyone may call, before any
// credential: registration and the consent page. The limiter is injected (a
// fake that records keys and refuses on demand), so the 429 path is
// deterministic; the last test drives a real rate-limiting binding with a
// limit of 2. The per-credential limits are in rate-limit.test.ts.

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
