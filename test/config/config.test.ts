import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/config";
import { BASE, failure, parsed } from "../helpers/config";
import { ACME_APPROVER_TOKEN, ACME_TOKEN, GLOBEX_APPROVER_TOKEN, GLOBEX_TOKEN } from "../helpers/tokens";

// parseConfig turns the Worker's vars into a Config, or into one readable
// error naming the variable and what to set. The token maps are in
// config-token-maps.test.ts.

describe("defaults", () => {
  it("an env with only the base URL gives safe production defaults", () => {
    const config = parsed({});
    expect(config).toEqual({
      environment: "production",
      maxBatch: 100,
      proposalTtlMinutes: 15,
      maxOpenProposals: 50,
      sendConcurrency: 8,
      runs: {
        maxRate: 50,
        maxSeconds: 900,
        maxOrders: 20_000,
        maxActive: 1,
        pauseSeconds: 60,
        maxInFlight: 64,
        maxLatenessMs: 1000,
        shardRate: 250,
        maxShards: 8,
        expectedServiceMs: 100,
        connectionsPerShard: 6,
      },
      platformLimits: { connections: 6, subrequests: 10_000 },
      demoTools: false,
      demoData: false,
      rateLimits: true,
      syntheticOrdersPerMinute: 6000,
      mcpTokens: new Map(),
      approverTokens: new Map(),
      allowedOrigins: [],
      allowedHosts: ["ops.example.com"],
      conformanceFixtures: false,
      fourEyes: { overCents: null, risk: null },
      publicIntakeAccount: undefined,
      publicBaseUrl: "https://ops.example.com",
      oauth: { issuer: "https://ops.example.com", accessTokenTtlSeconds: 3600, refreshTokenTtlSeconds: 30 * 24 * 3600 },
      orderApiUrl: undefined,
      intakeFaults: undefined,
      webhooks: { approvals: undefined, downstream: undefined },
      outboxRedriveSeconds: 300,
      applyProvider: { kind: "none", timeoutMs: 5000, reconcileSeconds: 30, reconcileChecks: 8 },
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
    expect(config.mcpTokens.get(ACME_TOKEN)?.account).toBe("acme");
    expect(config.mcpTokens.get(GLOBEX_TOKEN)?.account).toBe("globex");
    expect(config.approverTokens.get(ACME_APPROVER_TOKEN)?.account).toBe("acme");
    expect(config.approverTokens.get(GLOBEX_APPROVER_TOKEN)?.account).toBe("globex");
  });
});

describe("numbers and switches", () => {
  it("reads valid values, trimming whitespace", () => {
    const config = parsed({
      MAX_BATCH: " 250 ",
      PROPOSAL_TTL_MINUTES: "1440",
      SEND_CONCURRENCY: "32",
      DEMO_TOOLS: "on",
    });
    expect([config.maxBatch, config.proposalTtlMinutes, config.sendConcurrency, config.demoTools]).toEqual([
      250,
      1440,
      32,
      true,
    ]);
  });

  it.each([
    ["0", "MAX_BATCH: must be at least 1"],
    ["abc", "MAX_BATCH: must be a whole number"],
    ["-5", "MAX_BATCH: must be a whole number"],
    ["1.5", "MAX_BATCH: must be a whole number"],
    ["10001", "MAX_BATCH: must be at most 10000"],
  ])("MAX_BATCH %s fails naming MAX_BATCH", (value, problem) => {
    expect(failure({ MAX_BATCH: value })).toEqual({
      code: "not_configured",
      message: `configuration error: ${problem}`,
      errors: [problem],
    });
  });

  it("SYNTH_ORDERS_PER_MINUTE is read, and 0 fails naming it", () => {
    expect(parsed({ SYNTH_ORDERS_PER_MINUTE: "1200" }).syntheticOrdersPerMinute).toBe(1200);
    expect(failure({ SYNTH_ORDERS_PER_MINUTE: "0" }).errors).toEqual(["SYNTH_ORDERS_PER_MINUTE: must be at least 1"]);
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
    expect(failure({ MAX_BATCH: "0", DEMO_TOOLS: "yes" }).errors).toEqual([
      "MAX_BATCH: must be at least 1",
      'DEMO_TOOLS: use "on" or "off"',
    ]);
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
    expect(failure({ ALLOWED_ORIGINS: "not a url" }).errors).toEqual([
      "ALLOWED_ORIGINS[0]: each origin must look like https://app.example.com",
    ]);
  });
});

describe("allowed hosts (DNS-rebinding protection for /mcp)", () => {
  it("production answers to PUBLIC_BASE_URL's host and the custom domains in ALLOWED_HOSTS, lowercased", () => {
    expect(parsed({ ALLOWED_HOSTS: "MCP.example.com, mcp.example.org," }).allowedHosts).toEqual([
      "ops.example.com",
      "mcp.example.com",
      "mcp.example.org",
    ]);
  });

  it("development adds the names wrangler dev is reached by", () => {
    const config = parsed({ ENVIRONMENT: "development", PUBLIC_BASE_URL: "http://127.0.0.1:9000" });
    expect([...config.allowedHosts].sort()).toEqual(["127.0.0.1", "[::1]", "localhost"]);
  });

  it.each([["https://mcp.example.com"], ["mcp.example.com:443"], ["mcp.example.com/mcp"], ["*.example.com"]])(
    "ALLOWED_HOSTS refuses %s: hostnames only",
    (value) => {
      expect(failure({ ALLOWED_HOSTS: value }).errors).toEqual([
        "ALLOWED_HOSTS[0]: each host must be a bare hostname like mcp.example.com, without scheme, port or path",
      ]);
    },
  );
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
      "configuration error: PUBLIC_BASE_URL is required: `npm run deploy` sets it to the Worker's workers.dev address, or set it in wrangler.toml [vars] to the Worker's public URL, like https://order-ops-edge.<you>.workers.dev",
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

  it.each([
    ["ftp://ops.example.com"],
    ["ops.example.com"],
    ["https://ops.example.com/app"],
    ["https://ops.example.com/?x=1"],
  ])("refuses %s", (value) => {
    expect(failure({ PUBLIC_BASE_URL: value }).message).toMatch(/^configuration error: PUBLIC_BASE_URL: must be/);
  });
});

describe("four eyes", () => {
  it("reads a money bound and a risk level, and refuses anything else readably", () => {
    expect(parseConfig({ ...BASE, FOUR_EYES_OVER_CENTS: "50000", FOUR_EYES_RISK: "high" })).toMatchObject({
      ok: true,
      value: { fourEyes: { overCents: 50000, risk: "high" } },
    });
    const bad = parseConfig({ ...BASE, FOUR_EYES_OVER_CENTS: "$500", FOUR_EYES_RISK: "extreme" });
    expect(bad.ok).toBe(false);
    if (bad.ok) return;
    expect(bad.error.message).toContain(
      "FOUR_EYES_OVER_CENTS: must be a whole number of cents, like 50000 for $500.00",
    );
    expect(bad.error.message).toContain("FOUR_EYES_RISK");
  });
});
