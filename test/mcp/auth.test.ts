import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import app from "../../src/index";
import { MCP_URL, workerFetch } from "../helpers/mcp-client";
import { BOTH_MEDIA_TYPES, initializeRequest, type JsonRpcMessage, mcpHeaders, postMcp } from "../helpers/mcp-raw";
import type { ErrorBody } from "../helpers/orders";
import { ACME_APPROVER_TOKEN, ACME_TOKEN, GLOBEX_TOKEN, PRODUCTION_TOKEN } from "../helpers/tokens";

// Who may call /mcp: bearer tokens, origin checks and CORS, and failing closed.

const INSPECTOR_ORIGIN = "http://localhost:6274";
const EVIL_ORIGIN = "https://evil.example";

const initialize = () => initializeRequest(1, "2025-06-18");

async function errorBody(response: Response): Promise<ErrorBody> {
  expect(response.headers.get("content-type")).toMatch(/^application\/json/);
  return (await response.json()) as ErrorBody;
}

async function expectInitialized(response: Response): Promise<void> {
  expect(response.status).toBe(200);
  const body = (await response.json()) as JsonRpcMessage;
  expect(body.error).toBeUndefined();
  expect(body.result?.serverInfo).toEqual({ name: "order-ops-edge", version: "0.1.0" });
}

/** A comma-separated header as a list, whatever the spacing (hono/cors joins without spaces). */
function headerList(response: Response, name: string): string[] {
  return (response.headers.get(name) ?? "").split(",").map((h) => h.trim().toLowerCase());
}

function preflight(origin: string): Promise<Response> {
  return workerFetch(MCP_URL, {
    method: "OPTIONS",
    headers: {
      origin,
      "access-control-request-method": "POST",
      "access-control-request-headers": "authorization, content-type, mcp-protocol-version",
    },
  });
}

/** Names the resource metadata (RFC 9728), which is where an OAuth client's discovery starts. */
const MCP_CHALLENGE =
  'Bearer realm="order-ops-edge", resource_metadata="http://localhost/.well-known/oauth-protected-resource/mcp"';

describe("bearer tokens", () => {
  it("no Authorization header: 401 with a Bearer challenge that points at the resource metadata", async () => {
    const response = await postMcp(initialize());
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toBe(MCP_CHALLENGE);
    expect(await errorBody(response)).toEqual({
      code: "unauthorized",
      message: "send Authorization: Bearer <token> with your MCP token, or connect with OAuth",
    });
  });

  it("a non-Bearer Authorization header is treated as missing", async () => {
    const response = await postMcp(initialize(), { headers: { authorization: `Basic ${btoa(`acme:${ACME_TOKEN}`)}` } });
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toBe(MCP_CHALLENGE);
  });

  it('a wrong token: 401 with error="invalid_token"', async () => {
    const response = await postMcp(initialize(), { token: "not-a-real-token-at-all" });
    expect(response.status).toBe(401);
    const challenge = response.headers.get("www-authenticate") ?? "";
    expect(challenge.startsWith("Bearer")).toBe(true);
    expect(challenge).toContain('error="invalid_token"');
    expect(await errorBody(response)).toEqual({
      code: "unauthorized",
      message:
        "the bearer token is not a valid MCP token or OAuth access token (an OAuth token may have expired or been revoked)",
    });
  });

  it("a token that is a prefix of a real one is refused", async () => {
    const response = await postMcp(initialize(), { token: ACME_TOKEN.slice(0, -1) });
    expect(response.status).toBe(401);
  });

  it("an approver token: 401 saying approver tokens cannot be used for MCP", async () => {
    const response = await postMcp(initialize(), { token: ACME_APPROVER_TOKEN });
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toContain('error="invalid_token"');
    const body = await errorBody(response);
    expect(body.code).toBe("unauthorized");
    expect(body.message).toBe("approver tokens cannot be used for MCP; approvals happen only in the approval app");
  });

  it.each([
    ["acme", ACME_TOKEN],
    ["globex", GLOBEX_TOKEN],
  ])("the %s MCP token is accepted", async (_account, token) => {
    await expectInitialized(await postMcp(initialize(), { token }));
  });
});

describe("methods", () => {
  it.each(["GET", "DELETE"])(
    "%s /mcp: 405 with Allow: POST (stateless server, no SSE stream or session)",
    async (method) => {
      const response = await workerFetch(MCP_URL, {
        method,
        headers: { authorization: `Bearer ${ACME_TOKEN}`, accept: BOTH_MEDIA_TYPES },
      });
      expect(response.status).toBe(405);
      expect(response.headers.get("allow")).toBe("POST");
      expect((await errorBody(response)).code).toBe("method_not_allowed");
    },
  );
});

describe("Origin guard and CORS", () => {
  it("a foreign Origin is refused with 403 even with a valid token", async () => {
    const response = await postMcp(initialize(), { token: ACME_TOKEN, origin: EVIL_ORIGIN });
    expect(response.status).toBe(403);
    expect(response.headers.get("access-control-allow-origin")).toBeNull();
    expect(await errorBody(response)).toEqual({
      code: "forbidden",
      message:
        "origin https://evil.example is not allowed to call this MCP server; add it to ALLOWED_ORIGINS if it should be",
    });
  });

  it.each(["null", "http://localhost.evil.example", "file://localhost", "not a url"])(
    "Origin %j is refused with 403",
    async (origin) => {
      const response = await postMcp(initialize(), { token: ACME_TOKEN, origin });
      expect(response.status).toBe(403);
    },
  );

  it("a foreign Origin is refused before authentication (no token needed to be told 403)", async () => {
    expect((await postMcp(initialize(), { origin: EVIL_ORIGIN })).status).toBe(403);
  });

  it("a localhost Origin (MCP Inspector) with a valid token passes and gets CORS headers", async () => {
    const response = await postMcp(initialize(), { token: ACME_TOKEN, origin: INSPECTOR_ORIGIN });
    expect(response.headers.get("access-control-allow-origin")).toBe(INSPECTOR_ORIGIN);
    expect(response.headers.get("vary")).toContain("Origin");
    expect((response.headers.get("access-control-expose-headers") ?? "").toLowerCase()).toContain("www-authenticate");
    await expectInitialized(response);
  });

  it.each(["http://127.0.0.1:6274", "http://[::1]:6274"])(
    "loopback Origin %s passes in development",
    async (origin) => {
      const response = await postMcp(initialize(), { token: ACME_TOKEN, origin });
      expect(response.headers.get("access-control-allow-origin")).toBe(origin);
      await expectInitialized(response);
    },
  );

  it("a 401 to an allowed Origin still carries CORS headers, so the browser can read the challenge", async () => {
    const response = await postMcp(initialize(), { origin: INSPECTOR_ORIGIN });
    expect(response.status).toBe(401);
    expect(response.headers.get("access-control-allow-origin")).toBe(INSPECTOR_ORIGIN);
  });

  it("an OPTIONS preflight from localhost: 204 allowing exactly POST (and OPTIONS) and the requested headers", async () => {
    const response = await preflight(INSPECTOR_ORIGIN);
    expect(response.status).toBe(204);
    expect(response.headers.get("access-control-allow-origin")).toBe(INSPECTOR_ORIGIN);
    // Only what /mcp serves: GET and DELETE answer 405, so a browser is not told otherwise.
    expect(headerList(response, "access-control-allow-methods")).toEqual(["post", "options"]);
    expect(headerList(response, "access-control-allow-headers")).toEqual([
      "authorization",
      "content-type",
      "mcp-protocol-version",
    ]);
    expect(await response.text()).toBe("");
  });

  it.each(["GET", "DELETE"])("an OPTIONS preflight asking for %s is still told only POST, OPTIONS", async (method) => {
    const response = await workerFetch(MCP_URL, {
      method: "OPTIONS",
      headers: { origin: INSPECTOR_ORIGIN, "access-control-request-method": method },
    });
    expect(headerList(response, "access-control-allow-methods")).toEqual(["post", "options"]);
  });

  it("an OPTIONS preflight without requested headers: 204 allowing POST, and no header it did not ask for", async () => {
    const response = await workerFetch(MCP_URL, {
      method: "OPTIONS",
      headers: { origin: INSPECTOR_ORIGIN, "access-control-request-method": "POST" },
    });
    expect(response.status).toBe(204);
    expect(headerList(response, "access-control-allow-methods")).toEqual(["post", "options"]);
    expect(response.headers.get("access-control-allow-headers")).toBeNull();
  });

  it("an OPTIONS preflight from a foreign origin: 403", async () => {
    const response = await preflight(EVIL_ORIGIN);
    expect(response.status).toBe(403);
    expect(response.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("no Origin header (CLI clients) passes", async () => {
    const response = await postMcp(initialize(), { token: ACME_TOKEN });
    expect(response.headers.get("access-control-allow-origin")).toBeNull();
    await expectInitialized(response);
  });
});

describe("configuration seen by /mcp", () => {
  /** A deployed Worker needs a public base URL, and answers only to its host. */
  const PRODUCTION = { ENVIRONMENT: "production", PUBLIC_BASE_URL: "https://ops.example.com" };

  /** Calls the Hono app directly with env vars overridden; unknown names (ALLOWED_ORIGINS) are fine. */
  function callApp(overrides: Record<string, string>, headers: Record<string, string>): Promise<Response> {
    const url = overrides.PUBLIC_BASE_URL ? `${overrides.PUBLIC_BASE_URL}/mcp` : MCP_URL;
    const request = new Request(url, { method: "POST", headers, body: JSON.stringify(initialize()) });
    return Promise.resolve(app.fetch(request, { ...env, ...overrides }, createExecutionContext()));
  }

  it("fails closed with 503 when no MCP token is configured", async () => {
    const response = await callApp(
      { ...PRODUCTION, MCP_TOKENS: "", APPROVER_TOKENS: "" },
      mcpHeaders({ token: ACME_TOKEN }),
    );
    expect(response.status).toBe(503);
    const body = await errorBody(response);
    expect(body.code).toBe("not_configured");
    expect(body.message).toContain("set MCP_TOKENS");
    expect(body.message).toContain("wrangler secret put MCP_TOKENS");
  });

  it("fails closed with 503 even for callers that send no token at all", async () => {
    const response = await callApp({ ...PRODUCTION, MCP_TOKENS: "", APPROVER_TOKENS: "" }, mcpHeaders());
    expect(response.status).toBe(503);
    expect((await errorBody(response)).message).toContain("set MCP_TOKENS");
  });

  it("a token literally named __proto__ is a working MCP token, not a lost one", async () => {
    // Raw JSON: an object literal with a "__proto__" key would set the prototype instead.
    const tokens = '{"__proto__": {"account": "acme", "operator": "Proto Ops"}}';
    const response = await callApp(
      { MCP_TOKENS: tokens, ENVIRONMENT: "development", APPROVER_TOKENS: "" },
      mcpHeaders({ token: "__proto__" }),
    );
    await expectInitialized(response);
    const wrong = await callApp(
      { MCP_TOKENS: tokens, ENVIRONMENT: "development", APPROVER_TOKENS: "" },
      mcpHeaders({ token: "constructor" }),
    );
    expect(wrong.status).toBe(401);
  });

  it("in production a localhost Origin is refused unless listed in ALLOWED_ORIGINS", async () => {
    const tokens = JSON.stringify({ [PRODUCTION_TOKEN]: { account: "acme", operator: "Prod Ops" } });
    const production = { ...PRODUCTION, MCP_TOKENS: tokens, APPROVER_TOKENS: "" };
    const refused = await callApp(production, mcpHeaders({ token: PRODUCTION_TOKEN, origin: INSPECTOR_ORIGIN }));
    expect(refused.status).toBe(403);

    const allowed = await callApp(
      { ...production, ALLOWED_ORIGINS: INSPECTOR_ORIGIN },
      mcpHeaders({ token: PRODUCTION_TOKEN, origin: INSPECTOR_ORIGIN }),
    );
    expect(allowed.headers.get("access-control-allow-origin")).toBe(INSPECTOR_ORIGIN);
    await expectInitialized(allowed);
  });
});
