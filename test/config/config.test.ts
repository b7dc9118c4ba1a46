import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { parseConfig, type Config } from "../../src/config/config";
import { SCOPES } from "../../src/core/scopes";
import type { AppError } from "../../src/core/errors";
import app from "../../src/index";

// parseConfig turns the Worker's vars into a Config, or into one readable
// error naming the variable and what to set.

/** Production refuses to start without a public base URL and the OAuth KV binding, so every production case has both. */
const BASE = { PUBLIC_BASE_URL: "https://ops.example.com", OAUTH_KV: env.OAUTH_KV };

function parsed(vars: Record<string, unknown>): Config {
  const result = parseConfig({ ...BASE, ...vars });
  if (!result.ok) throw new Error(`expected a valid config, got: ${result.error.message}`);
  return result.value;
}

function failure(vars: Record<string, unknown>): AppError {
  const result = parseConfig({ ...BASE, ...vars });
  if (result.ok) throw new Error("expected a configuration error");
  return result.error;
}

const LONG_A = "a".repeat(32);
const LONG_B = "b".repeat(32);
const mcpTokens = (token: string, account = "acme") => JSON.stringify({ [token]: { account, operator: "Ada" } });
/** An MCP token entry as parsed: without "scopes" it holds all of them. */
const holder = (account: string, operator = "Ada") => ({ account, operator, scopes: [...SCOPES] });
const approverTokens = (token: string, account = "acme") => JSON.stringify({ [token]: { account, approver: "Avery" } });

// The help text every token-map problem ends with.
const MCP_HELP =
  'set it with `wrangler secret put MCP_TOKENS`, value {"<token>":{"account":"acme","operator":"Ada"}}, optionally with "scopes":["orders:read",...] to narrow a token';
const APPROVER_HELP = 'set it with `wrangler secret put APPROVER_TOKENS`, value {"<token>":{"account":"acme","approver":"Avery"}}';
const ACCOUNT_ID_RULE = "account ids are 2-32 lowercase letters, digits or dashes, starting with a letter";

describe("defaults", () => {
  it("an env with only the base URL gives safe production defaults", () => {
    const config = parsed({});
    expect(config).toEqual({
      environment: "production",
      maxBatch: 100,
      proposalTtlMinutes: 15,
      maxOpenProposals: 50,
      sendConcurrency: 8,
      runs: { maxRate: 50, maxSeconds: 900, maxOrders: 20_000, maxActive: 1, pauseSeconds: 60 },
      demoTools: false,
      rateLimits: true,
      mcpTokens: new Map(),
      approverTokens: new Map(),
      allowedOrigins: [],
      allowedHosts: ["ops.example.com"],
      conformanceFixtures: false,
      publicIntakeAccount: undefined,
      publicBaseUrl: "https://ops.example.com",
      oauth: { issuer: "https://ops.example.com", accessTokenTtlSeconds: 3600, refreshTokenTtlSeconds: 30 * 24 * 3600 },
    });
  });

  it("empty and blank strings count as unset", () => {
    const config = parsed({
      ENVIRONMENT: "",
      MAX_BATCH: "",
      PROPOSAL_TTL_MINUTES: "   ",
      DEMO_TOOLS: "",
      MCP_TOKENS: "",
      APPROVER_TOKENS: " ",
      PUBLIC_INTAKE_ACCOUNT: "",
      ALLOWED_ORIGINS: "",
    });
    expect(config).toEqual(parsed({}));
  });

  it("ignores bindings that are not strings", () => {
    const result = parseConfig({ ...BASE, DB: {}, MAX_BATCH: 0, ORDER_API: () => undefined });
    expect(result.ok && result.value.maxBatch).toBe(100);
  });

  it("parses the test env (.dev.vars layered over wrangler.toml)", () => {
    const config = parsed(env as unknown as Record<string, string>);
    expect(config.environment).toBe("development");
    expect(config.demoTools).toBe(true);
    // The suite, smoke, soak and bench send far more per token than any agent session.
    expect(config.rateLimits).toBe(false);
    expect(config.publicIntakeAccount).toBe("acme");
    expect(config.mcpTokens.get("acme-dev-token")?.account).toBe("acme");
    expect(config.mcpTokens.get("globex-dev-token")?.account).toBe("globex");
    expect(config.approverTokens.get("acme-approver-dev-token")?.account).toBe("acme");
    expect(config.approverTokens.get("globex-approver-dev-token")?.account).toBe("globex");
  });
});

describe("numbers and switches", () => {
  it("reads valid values, trimming whitespace", () => {
    const config = parsed({ MAX_BATCH: " 250 ", PROPOSAL_TTL_MINUTES: "1440", SEND_CONCURRENCY: "32", DEMO_TOOLS: "on" });
    expect([config.maxBatch, config.proposalTtlMinutes, config.sendConcurrency, config.demoTools]).toEqual([250, 1440, 32, true]);
  });

  it.each([
    ["0", "MAX_BATCH: must be at least 1"],
    ["abc", "MAX_BATCH: must be a whole number"],
    ["-5", "MAX_BATCH: must be a whole number"],
    ["1.5", "MAX_BATCH: must be a whole number"],
    ["10001", "MAX_BATCH: must be at most 10000"],
  ])("MAX_BATCH %s fails naming MAX_BATCH", (value, problem) => {
    expect(failure({ MAX_BATCH: value })).toEqual({ code: "not_configured", message: `configuration error: ${problem}`, errors: [problem] });
  });

  it("PROPOSAL_TTL_MINUTES above a day fails naming it", () => {
    expect(failure({ PROPOSAL_TTL_MINUTES: "1441" }).errors).toEqual(["PROPOSAL_TTL_MINUTES: must be at most 1440"]);
  });

  it.each([
    ["on", true],
    ["true", true],
    ["1", true],
    ["off", false],
    ["false", false],
    ["0", false],
  ])("DEMO_TOOLS %s is %s", (value, expected) => {
    expect(parsed({ DEMO_TOOLS: value }).demoTools).toBe(expected);
  });

  it.each([
    ["off", false],
    ["on", true],
  ])("RATE_LIMITS %s is %s", (value, expected) => {
    expect(parsed({ RATE_LIMITS: value }).rateLimits).toBe(expected);
  });

  it("DEMO_TOOLS yes fails naming DEMO_TOOLS", () => {
    expect(failure({ DEMO_TOOLS: "yes" }).errors).toEqual(['DEMO_TOOLS: use "on" or "off"']);
  });

  it("an unknown ENVIRONMENT fails naming it", () => {
    const error = failure({ ENVIRONMENT: "staging" });
    expect(error.errors).toHaveLength(1);
    expect(error.errors?.[0]).toMatch(/^ENVIRONMENT: /);
  });

  it("reports every bad variable at once", () => {
    expect(failure({ MAX_BATCH: "0", DEMO_TOOLS: "yes" }).errors).toEqual(["MAX_BATCH: must be at least 1", 'DEMO_TOOLS: use "on" or "off"']);
  });
});

describe("token maps", () => {
  it("reads MCP and approver tokens into maps", () => {
    const config = parsed({ MCP_TOKENS: mcpTokens(LONG_A, "globex"), APPROVER_TOKENS: approverTokens(LONG_B) });
    expect(config.mcpTokens).toEqual(new Map([[LONG_A, holder("globex")]]));
    expect(config.approverTokens).toEqual(new Map([[LONG_B, { account: "acme", approver: "Avery" }]]));
  });

  it("malformed MCP_TOKENS JSON fails naming MCP_TOKENS and how to set it", () => {
    const error = failure({ MCP_TOKENS: "{not json" });
    const problem = `MCP_TOKENS: not valid JSON; expected {"<token>": {...}} (${MCP_HELP})`;
    expect(error).toEqual({ code: "not_configured", message: `configuration error: ${problem}`, errors: [problem] });
  });

  it("malformed APPROVER_TOKENS JSON fails naming APPROVER_TOKENS and how to set it", () => {
    expect(failure({ APPROVER_TOKENS: "[" }).errors).toEqual([`APPROVER_TOKENS: not valid JSON; expected {"<token>": {...}} (${APPROVER_HELP})`]);
  });

  it.each([
    ["an array", '["acme-dev-token"]'],
    ["a string", '"acme-dev-token"'],
    ["null", "null"],
  ])("MCP_TOKENS holding JSON %s fails asking for an object", (_label, value) => {
    expect(failure({ MCP_TOKENS: value }).errors).toEqual([`MCP_TOKENS: must be a JSON object of {"<token>": {...}} (${MCP_HELP})`]);
  });

  it("a token present in both maps fails", () => {
    expect(failure({ MCP_TOKENS: mcpTokens(LONG_A), APPROVER_TOKENS: approverTokens(LONG_A) }).errors).toEqual([
      "a token appears in both MCP_TOKENS and APPROVER_TOKENS; an approver credential must differ from every MCP token",
    ]);
  });

  it("in production a short token fails, saying the minimum length", () => {
    const shortToken = "short-token-123";
    const problem = `the token for account acme is ${shortToken.length} characters; production tokens need at least 32 (try \`openssl rand -hex 32\`)`;
    expect(failure({ MCP_TOKENS: mcpTokens(shortToken) }).errors).toEqual([problem]);
    expect(failure({ ENVIRONMENT: "production", APPROVER_TOKENS: approverTokens(shortToken) }).errors).toEqual([problem]);
  });

  it("a 32-character token is long enough for production", () => {
    expect(parsed({ ENVIRONMENT: "production", MCP_TOKENS: mcpTokens(LONG_A) }).mcpTokens.size).toBe(1);
  });

  it("in development short tokens are allowed", () => {
    expect(parsed({ ENVIRONMENT: "development", MCP_TOKENS: mcpTokens("dev-token") }).mcpTokens.get("dev-token")?.account).toBe("acme");
  });

  it("an invalid account id in a token entry fails naming MCP_TOKENS and the entry's number", () => {
    const error = failure({ MCP_TOKENS: mcpTokens(LONG_A, "ACME") });
    const problem = `MCP_TOKENS: entry 1: account: ${ACCOUNT_ID_RULE} (${MCP_HELP})`;
    expect(error).toEqual({ code: "not_configured", message: `configuration error: ${problem}`, errors: [problem] });
  });

  it("numbers entries in the order they appear, and reports every problem of every entry", () => {
    const tokens = JSON.stringify({
      [LONG_A]: { account: "acme", operator: "Ada" },
      short: { account: "globex", operator: "Gus" },
      [LONG_B]: { account: "Globex", operator: "" },
    });
    expect(failure({ ENVIRONMENT: "development", MCP_TOKENS: tokens }).errors).toEqual([
      `MCP_TOKENS: entry 2: tokens must be at least 8 characters (${MCP_HELP})`,
      `MCP_TOKENS: entry 3: account: ${ACCOUNT_ID_RULE} (${MCP_HELP})`,
      `MCP_TOKENS: entry 3: operator: Too small: expected string to have >=1 characters (${MCP_HELP})`,
    ]);
  });

  it.each([
    ["a number", "7", "number"],
    ["a string", '"acme"', "string"],
    ["null", "null", "null"],
    ["an array", '["acme", "Ada"]', "array"],
  ])("an entry that is %s reads 'expected object', without the word body", (_label, holder, received) => {
    const problem = `MCP_TOKENS: entry 1: Invalid input: expected object, received ${received} (${MCP_HELP})`;
    const error = failure({ ENVIRONMENT: "development", MCP_TOKENS: `{"${LONG_A}": ${holder}}` });
    expect(error).toEqual({ code: "not_configured", message: `configuration error: ${problem}`, errors: [problem] });
    expect(error.message).not.toMatch(/\bbody\b/);
  });

  it("an approver entry that is not an object reads the same way", () => {
    expect(failure({ APPROVER_TOKENS: JSON.stringify({ [LONG_A]: 7 }) }).errors).toEqual([
      `APPROVER_TOKENS: entry 1: Invalid input: expected object, received number (${APPROVER_HELP})`,
    ]);
  });

  it("an approver entry without an approver names APPROVER_TOKENS and the entry", () => {
    const tokens = JSON.stringify({ [LONG_A]: { account: "acme", approver: "Avery" }, [LONG_B]: { account: "acme" } });
    expect(failure({ ENVIRONMENT: "development", APPROVER_TOKENS: tokens }).errors).toEqual([
      `APPROVER_TOKENS: entry 2: approver is required (${APPROVER_HELP})`,
    ]);
  });
});

describe("token names that are also Object.prototype names", () => {
  // Raw JSON throughout: in an object literal a "__proto__" key sets the prototype instead.
  it("a token literally named __proto__ survives as a key of mcpTokens", () => {
    const config = parsed({ ENVIRONMENT: "development", MCP_TOKENS: '{"__proto__": {"account": "acme", "operator": "Ada"}}' });
    expect([...config.mcpTokens.keys()]).toEqual(["__proto__"]);
    expect(config.mcpTokens.get("__proto__")).toEqual(holder("acme"));
  });

  it("__proto__ sits next to ordinary tokens, in order, and constructor / toString are ordinary keys too", () => {
    const tokens = `{"${LONG_A}": {"account": "acme", "operator": "Ada"}, "__proto__": {"account": "globex", "operator": "Gus"}, "constructor": {"account": "acme", "operator": "Cy"}, "toString": {"account": "acme", "operator": "Tess"}}`;
    const config = parsed({ ENVIRONMENT: "development", MCP_TOKENS: tokens });
    expect(config.mcpTokens).toEqual(
      new Map([
        [LONG_A, holder("acme")],
        ["__proto__", holder("globex", "Gus")],
        ["constructor", holder("acme", "Cy")],
        ["toString", holder("acme", "Tess")],
      ]),
    );
    expect([...config.mcpTokens.keys()]).toEqual([LONG_A, "__proto__", "constructor", "toString"]);
    expect(config.mcpTokens.has("hasOwnProperty")).toBe(false);
  });

  it("an approver token named __proto__ survives too", () => {
    const config = parsed({ ENVIRONMENT: "development", APPROVER_TOKENS: '{"__proto__": {"account": "acme", "approver": "Avery"}}' });
    expect(config.approverTokens).toEqual(new Map([["__proto__", { account: "acme", approver: "Avery" }]]));
  });

  it("__proto__ in both maps is caught as a shared token", () => {
    const error = failure({
      ENVIRONMENT: "development",
      MCP_TOKENS: '{"__proto__": {"account": "acme", "operator": "Ada"}}',
      APPROVER_TOKENS: '{"__proto__": {"account": "acme", "approver": "Avery"}}',
    });
    expect(error.errors).toEqual(["a token appears in both MCP_TOKENS and APPROVER_TOKENS; an approver credential must differ from every MCP token"]);
  });
});

describe("token values never appear in a configuration error", () => {
  const SECRET = "prod-secret-token-do-not-leak";

  /** The whole error, message and every listed problem, as one searchable string. */
  function everything(error: AppError): string {
    return JSON.stringify(error);
  }

  it.each([
    ["an invalid account id", { [SECRET]: { account: "ACME", operator: "Ada" } }],
    ["a missing operator", { [SECRET]: { account: "acme" } }],
    ["an empty operator", { [SECRET]: { account: "acme", operator: "" } }],
    ["a holder that is not an object", { [SECRET]: "acme" }],
    ["a valid entry before the invalid one", { [LONG_A]: { account: "acme", operator: "Ada" }, [SECRET]: { account: "acme", operator: 7 } }],
  ])("MCP_TOKENS with %s names the entry, not the token", (_label, tokens) => {
    for (const environment of ["development", "production"]) {
      const error = failure({ ENVIRONMENT: environment, MCP_TOKENS: JSON.stringify(tokens) });
      expect(error.errors?.length).toBeGreaterThan(0);
      expect(error.errors?.every((problem) => /^MCP_TOKENS: entry \d+: /.test(problem))).toBe(true);
      expect(everything(error)).not.toContain(SECRET);
      // Not even a part of it: the JSON key path is where the old message put it.
      expect(everything(error)).not.toContain("do-not-leak");
    }
  });

  it("APPROVER_TOKENS with an invalid entry names the entry, not the token", () => {
    const error = failure({ APPROVER_TOKENS: JSON.stringify({ [SECRET]: { account: "acme", approver: ["Avery"] } }) });
    expect(error.errors).toEqual([`APPROVER_TOKENS: entry 1: approver: Invalid input: expected string, received array (${APPROVER_HELP})`]);
    expect(everything(error)).not.toContain(SECRET);
  });

  it("a token that is too short is not echoed either", () => {
    const shortSecret = "s3kr1t!";
    const error = failure({ MCP_TOKENS: mcpTokens(shortSecret) });
    expect(error.errors).toEqual([`MCP_TOKENS: entry 1: tokens must be at least 8 characters (${MCP_HELP})`]);
    expect(everything(error)).not.toContain(shortSecret);
  });

  it("nor is a token that appears in both maps, or is too short for production", () => {
    const error = failure({ MCP_TOKENS: mcpTokens(SECRET), APPROVER_TOKENS: approverTokens(SECRET) });
    expect(error.errors).toEqual([
      "a token appears in both MCP_TOKENS and APPROVER_TOKENS; an approver credential must differ from every MCP token",
      `the token for account acme is ${SECRET.length} characters; production tokens need at least 32 (try \`openssl rand -hex 32\`)`,
      `the token for account acme is ${SECRET.length} characters; production tokens need at least 32 (try \`openssl rand -hex 32\`)`,
    ]);
    expect(everything(error)).not.toContain(SECRET);
  });

  it("GET /api/health with such a config answers 503 without the token, and logs none", async () => {
    const errorLog = vi.spyOn(console, "error").mockImplementation(() => undefined);
    try {
      const tokens = JSON.stringify({ [SECRET]: { account: "ACME", operator: "Ada" } });
      // A fresh env object: config is parsed once per env object.
      const response = await app.fetch(new Request("http://localhost/api/health"), { ...env, MCP_TOKENS: tokens }, createExecutionContext());
      expect(response.status).toBe(503);
      const body = await response.text();
      const problem = `MCP_TOKENS: entry 1: account: ${ACCOUNT_ID_RULE} (${MCP_HELP})`;
      expect(JSON.parse(body)).toEqual({ code: "not_configured", message: `configuration error: ${problem}`, errors: [problem] });
      expect(body).not.toContain(SECRET);
      expect(errorLog).toHaveBeenCalledWith(`configuration error: ${problem}`);
      expect(JSON.stringify(errorLog.mock.calls)).not.toContain(SECRET);
    } finally {
      errorLog.mockRestore();
    }
  });
});

describe("other variables", () => {
  it("PUBLIC_INTAKE_ACCOUNT must be an account id", () => {
    expect(parsed({ PUBLIC_INTAKE_ACCOUNT: "acme" }).publicIntakeAccount).toBe("acme");
    expect(failure({ PUBLIC_INTAKE_ACCOUNT: "Acme Corp" }).errors).toEqual([
      "PUBLIC_INTAKE_ACCOUNT: account ids are 2-32 lowercase letters, digits or dashes, starting with a letter",
    ]);
  });

  it("ALLOWED_ORIGINS is a comma-separated list of URLs", () => {
    expect(parsed({ ALLOWED_ORIGINS: "https://a.example.com, https://b.example.com," }).allowedOrigins).toEqual([
      "https://a.example.com",
      "https://b.example.com",
    ]);
    expect(failure({ ALLOWED_ORIGINS: "not a url" }).errors).toEqual(["ALLOWED_ORIGINS[0]: each origin must look like https://app.example.com"]);
  });
});

describe("allowed hosts (DNS-rebinding protection for /mcp)", () => {
  it("production answers to PUBLIC_BASE_URL's host and the custom domains in ALLOWED_HOSTS, lowercased", () => {
    expect(parsed({ ALLOWED_HOSTS: "MCP.example.com, mcp.example.org," }).allowedHosts).toEqual(["ops.example.com", "mcp.example.com", "mcp.example.org"]);
  });

  it("development adds the names wrangler dev is reached by", () => {
    const config = parsed({ ENVIRONMENT: "development", PUBLIC_BASE_URL: "http://127.0.0.1:9000" });
    expect([...config.allowedHosts].sort()).toEqual(["127.0.0.1", "[::1]", "localhost"]);
  });

  it.each([["https://mcp.example.com"], ["mcp.example.com:443"], ["mcp.example.com/mcp"], ["*.example.com"]])("ALLOWED_HOSTS refuses %s: hostnames only", (value) => {
    expect(failure({ ALLOWED_HOSTS: value }).errors).toEqual(["ALLOWED_HOSTS[0]: each host must be a bare hostname like mcp.example.com, without scheme, port or path"]);
  });
});

describe("CONFORMANCE_FIXTURES", () => {
  it("is off unless set, and can be turned on in development", () => {
    expect(parsed({}).conformanceFixtures).toBe(false);
    expect(parsed({ ENVIRONMENT: "development", CONFORMANCE_FIXTURES: "on" }).conformanceFixtures).toBe(true);
  });

  it("is refused in production, saying why", () => {
    expect(failure({ CONFORMANCE_FIXTURES: "on" }).errors).toEqual([
      "CONFORMANCE_FIXTURES adds the MCP conformance suite's test tools and is for development only; remove it, or set ENVIRONMENT=development on a local server",
    ]);
  });
});

describe("PUBLIC_BASE_URL", () => {
  it("is required in production, with a message that says what to set", () => {
    const result = parseConfig({ OAUTH_KV: env.OAUTH_KV });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.message).toBe(
      "configuration error: PUBLIC_BASE_URL is required: set it in wrangler.toml [vars] to the Worker's public URL, like https://order-ops-edge.<you>.workers.dev",
    );
  });

  it("defaults to wrangler dev's address in development", () => {
    const result = parseConfig({ ENVIRONMENT: "development" });
    expect(result.ok && result.value.publicBaseUrl).toBe("http://localhost:8787");
  });

  it("loses a trailing slash", () => {
    expect(parsed({ PUBLIC_BASE_URL: "https://ops.example.com/" }).publicBaseUrl).toBe("https://ops.example.com");
  });

  it("is spelled canonically (lowercase host, no default port), because OAuth compares issuers exactly", () => {
    expect(parsed({ PUBLIC_BASE_URL: "https://Ops.Example.com:443" }).publicBaseUrl).toBe("https://ops.example.com");
  });

  it.each([["ftp://ops.example.com"], ["ops.example.com"], ["https://ops.example.com/app"], ["https://ops.example.com/?x=1"]])("refuses %s", (value) => {
    expect(failure({ PUBLIC_BASE_URL: value }).message).toMatch(/^configuration error: PUBLIC_BASE_URL: must be/);
  });
});
