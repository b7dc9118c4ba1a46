import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { type Config, parseConfig } from "../../src/config/config";
import { DEVELOPMENT_TOKENS } from "../../src/config/deployment-checks";
import type { AppError } from "../../src/core/errors";
import { ACME_TOKEN } from "../helpers/tokens";

// A deployed Worker (ENVIRONMENT=production) refuses to start with the
// public development tokens, without PUBLIC_BASE_URL on a public https
// address, or without the OAuth KV binding. And the OAuth-related settings parse with readable errors.

const LONG = "l".repeat(40);
const PRODUCTION = {
  ENVIRONMENT: "production",
  PUBLIC_BASE_URL: "https://ops.example.com",
  OAUTH_KV: env.OAUTH_KV,
  MCP_TOKENS: JSON.stringify({ [LONG]: { account: "acme", operator: "Ada" } }),
};

function parsed(vars: Record<string, unknown>): Config {
  const result = parseConfig(vars);
  if (!result.ok) throw new Error(`expected a valid config, got: ${result.error.message}`);
  return result.value;
}

function problems(vars: Record<string, unknown>): readonly string[] {
  const result = parseConfig(vars);
  if (result.ok) throw new Error("expected a configuration error");
  return (result.error as AppError).errors ?? [];
}

describe("development credentials", () => {
  it("the list knows every token .dev.vars ships (the test env is .dev.vars)", () => {
    const shipped = [
      ...Object.keys(JSON.parse(env.MCP_TOKENS) as object),
      ...Object.keys(JSON.parse(env.APPROVER_TOKENS) as object),
    ];
    expect(shipped.length).toBeGreaterThan(0);
    expect(shipped.filter((token) => !DEVELOPMENT_TOKENS.has(token))).toEqual([]);
  });

  it("a production Worker carrying them refuses to start, without echoing them", () => {
    const found = problems({ ...PRODUCTION, MCP_TOKENS: env.MCP_TOKENS, APPROVER_TOKENS: env.APPROVER_TOKENS });
    const message =
      "9 configured token(s) are the local development tokens from .dev.vars, which anyone can read; set your own with `wrangler secret put MCP_TOKENS` and `wrangler secret put APPROVER_TOKENS` (make each with `openssl rand -hex 32`)";
    expect(found).toContain(message);
    expect(found.join(" ")).not.toContain(ACME_TOKEN);
  });

  it("development keeps them", () => {
    expect(parsed({ ...env }).mcpTokens.has(ACME_TOKEN)).toBe(true);
  });
});

describe("what production needs", () => {
  it("a complete production configuration parses", () => {
    expect(parsed(PRODUCTION).oauth?.issuer).toBe("https://ops.example.com");
  });

  it("the OAuth KV binding", () => {
    expect(problems({ ...PRODUCTION, OAUTH_KV: undefined })).toEqual([
      'the OAUTH_KV binding is missing: add [[kv_namespaces]] binding = "OAUTH_KV" to wrangler.toml and deploy again (`npm run deploy`); wrangler creates the namespace',
    ]);
  });

  it("PUBLIC_BASE_URL on https", () => {
    expect(problems({ ...PRODUCTION, PUBLIC_BASE_URL: "http://ops.example.com" })).toEqual([
      "PUBLIC_BASE_URL must use https (OAuth 2.1 requires it)",
    ]);
  });

  it.each(["http://localhost:8787", "https://localhost", "http://127.0.0.1:8787", "http://[::1]:8787"])(
    "not an address on this machine: %s",
    (url) => {
      expect(problems({ ...PRODUCTION, PUBLIC_BASE_URL: url })).toEqual([
        `PUBLIC_BASE_URL is ${url}, an address on this machine that nobody else can reach; set it to the Worker's public URL, like https://order-ops-edge.<you>.workers.dev (to try the Worker locally, set ENVIRONMENT=development)`,
      ]);
    },
  );

  it("trying the Worker locally is development, where http on this machine is fine and OAuth stays on", () => {
    expect(
      parsed({ ...PRODUCTION, ENVIRONMENT: "development", PUBLIC_BASE_URL: "http://localhost:8787" }).oauth?.issuer,
    ).toBe("http://localhost:8787");
  });

  it("reports every missing piece at once", () => {
    expect(problems({ ENVIRONMENT: "production" })).toHaveLength(2);
  });
});

describe("OAuth settings", () => {
  it("in development a plain-http LAN address turns OAuth off rather than failing", () => {
    expect(parsed({ ENVIRONMENT: "development", PUBLIC_BASE_URL: "http://192.168.1.20:8787" }).oauth).toBeUndefined();
  });

  it("token lifetimes have defaults and bounds", () => {
    expect(
      parsed({ ...PRODUCTION, OAUTH_ACCESS_TOKEN_TTL_SECONDS: "600", OAUTH_REFRESH_TOKEN_TTL_SECONDS: "86400" }).oauth,
    ).toEqual({
      issuer: "https://ops.example.com",
      accessTokenTtlSeconds: 600,
      refreshTokenTtlSeconds: 86400,
    });
    // Cloudflare KV keeps nothing for less than 60 seconds.
    expect(problems({ ...PRODUCTION, OAUTH_ACCESS_TOKEN_TTL_SECONDS: "30" })).toEqual([
      "OAUTH_ACCESS_TOKEN_TTL_SECONDS: must be at least 60",
    ]);
  });
});

describe("scopes on MCP_TOKENS entries", () => {
  const withScopes = (scopes: unknown) => ({
    ...PRODUCTION,
    MCP_TOKENS: JSON.stringify({ [LONG]: { account: "acme", operator: "Ada", scopes } }),
  });

  it("narrow a token, kept in the canonical order", () => {
    expect(parsed(withScopes(["orders:propose", "orders:read"])).mcpTokens.get(LONG)?.scopes).toEqual([
      "orders:read",
      "orders:propose",
    ]);
  });

  it("an unknown scope names the entry and the choices", () => {
    const [problem] = problems(withScopes(["orders:approve"]));
    expect(problem).toMatch(
      /^MCP_TOKENS: entry 1: scopes\[0\]: use one of traffic:read, traffic:send, orders:read, orders:propose /,
    );
  });

  it("an empty list is refused: leave scopes out for all of them", () => {
    const [problem] = problems(withScopes([]));
    expect(problem).toMatch(
      /^MCP_TOKENS: entry 1: scopes: list at least one scope, or leave scopes out for all of traffic:read, traffic:send, orders:read, orders:propose /,
    );
  });
});
