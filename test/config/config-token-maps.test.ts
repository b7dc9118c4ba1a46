import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { defaultPersonId } from "../../src/config/token-maps";
import type { AppError } from "../../src/core/errors";
import { SCOPES } from "../../src/core/scopes";
import app from "../../src/index";
import { failure, parsed } from "../helpers/config";

// MCP_TOKENS and APPROVER_TOKENS: parsed into maps, or into one readable error
// naming the variable, the entry and what to set, never the token itself.

const LONG_A = "a".repeat(32);
const LONG_B = "b".repeat(32);
const mcpTokens = (token: string, account = "acme") => JSON.stringify({ [token]: { account, operator: "Ada" } });
/**
 * An MCP token entry as parsed: without "scopes" it holds all of them, and without "id" its identity comes from the
 * token.
 */
const holder = (token: string, account: string, operator = "Ada") => ({
  account,
  id: defaultPersonId(token),
  operator,
  role: "operator",
  scopes: [...SCOPES],
});
const approverTokens = (token: string, account = "acme") => JSON.stringify({ [token]: { account, approver: "Avery" } });

// The help text every token-map problem ends with.
const MCP_HELP =
  'set it with `wrangler secret put MCP_TOKENS`, value {"<token>":{"account":"acme","operator":"Ada"}}, optionally with "scopes":["orders:read",...] to narrow a token';
const APPROVER_HELP =
  'set it with `wrangler secret put APPROVER_TOKENS`, value {"<token>":{"account":"acme","approver":"Avery"}}';
const ACCOUNT_ID_RULE = "account ids are 2-32 lowercase letters, digits or dashes, starting with a letter";

describe("token maps", () => {
  it("reads MCP and approver tokens into maps", () => {
    const config = parsed({ MCP_TOKENS: mcpTokens(LONG_A, "globex"), APPROVER_TOKENS: approverTokens(LONG_B) });
    expect(config.mcpTokens).toEqual(new Map([[LONG_A, holder(LONG_A, "globex")]]));
    expect(config.approverTokens).toEqual(
      new Map([[LONG_B, { account: "acme", id: defaultPersonId(LONG_B), approver: "Avery" }]]),
    );
  });

  it("malformed MCP_TOKENS JSON fails naming MCP_TOKENS and how to set it", () => {
    const error = failure({ MCP_TOKENS: "{not json" });
    const problem = `MCP_TOKENS: not valid JSON; expected {"<token>": {...}} (${MCP_HELP})`;
    expect(error).toEqual({ code: "not_configured", message: `configuration error: ${problem}`, errors: [problem] });
  });

  it("malformed APPROVER_TOKENS JSON fails naming APPROVER_TOKENS and how to set it", () => {
    expect(failure({ APPROVER_TOKENS: "[" }).errors).toEqual([
      `APPROVER_TOKENS: not valid JSON; expected {"<token>": {...}} (${APPROVER_HELP})`,
    ]);
  });

  it.each([
    ["an array", '["acme-dev-token"]'],
    ["a string", '"acme-dev-token"'],
    ["null", "null"],
  ])("MCP_TOKENS holding JSON %s fails asking for an object", (_label, value) => {
    expect(failure({ MCP_TOKENS: value }).errors).toEqual([
      `MCP_TOKENS: must be a JSON object of {"<token>": {...}} (${MCP_HELP})`,
    ]);
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
    expect(failure({ ENVIRONMENT: "production", APPROVER_TOKENS: approverTokens(shortToken) }).errors).toEqual([
      problem,
    ]);
  });

  it("a 32-character token is long enough for production", () => {
    expect(parsed({ ENVIRONMENT: "production", MCP_TOKENS: mcpTokens(LONG_A) }).mcpTokens.size).toBe(1);
  });

  it("in development short tokens are allowed", () => {
    expect(
      parsed({ ENVIRONMENT: "development", MCP_TOKENS: mcpTokens("dev-token") }).mcpTokens.get("dev-token")?.account,
    ).toBe("acme");
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
    const config = parsed({
      ENVIRONMENT: "development",
      MCP_TOKENS: '{"__proto__": {"account": "acme", "operator": "Ada"}}',
    });
    expect([...config.mcpTokens.keys()]).toEqual(["__proto__"]);
    expect(config.mcpTokens.get("__proto__")).toEqual(holder("__proto__", "acme"));
  });

  it("__proto__ sits next to ordinary tokens, in order, and constructor / toString are ordinary keys too", () => {
    const tokens = `{"${LONG_A}": {"account": "acme", "operator": "Ada"}, "__proto__": {"account": "globex", "operator": "Gus"}, "constructor": {"account": "acme", "operator": "Cy"}, "toString": {"account": "acme", "operator": "Tess"}}`;
    const config = parsed({ ENVIRONMENT: "development", MCP_TOKENS: tokens });
    expect(config.mcpTokens).toEqual(
      new Map([
        [LONG_A, holder(LONG_A, "acme")],
        ["__proto__", holder("__proto__", "globex", "Gus")],
        ["constructor", holder("constructor", "acme", "Cy")],
        ["toString", holder("toString", "acme", "Tess")],
      ]),
    );
    expect([...config.mcpTokens.keys()]).toEqual([LONG_A, "__proto__", "constructor", "toString"]);
    expect(config.mcpTokens.has("hasOwnProperty")).toBe(false);
  });

  it("an approver token named __proto__ survives too", () => {
    const config = parsed({
      ENVIRONMENT: "development",
      APPROVER_TOKENS: '{"__proto__": {"account": "acme", "approver": "Avery"}}',
    });
    expect(config.approverTokens).toEqual(
      new Map([["__proto__", { account: "acme", id: defaultPersonId("__proto__"), approver: "Avery" }]]),
    );
  });

  it("__proto__ in both maps is caught as a shared token", () => {
    const error = failure({
      ENVIRONMENT: "development",
      MCP_TOKENS: '{"__proto__": {"account": "acme", "operator": "Ada"}}',
      APPROVER_TOKENS: '{"__proto__": {"account": "acme", "approver": "Avery"}}',
    });
    expect(error.errors).toEqual([
      "a token appears in both MCP_TOKENS and APPROVER_TOKENS; an approver credential must differ from every MCP token",
    ]);
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
    [
      "a valid entry before the invalid one",
      { [LONG_A]: { account: "acme", operator: "Ada" }, [SECRET]: { account: "acme", operator: 7 } },
    ],
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
    expect(error.errors).toEqual([
      `APPROVER_TOKENS: entry 1: approver: Invalid input: expected string, received array (${APPROVER_HELP})`,
    ]);
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
      const response = await app.fetch(
        new Request("http://localhost/api/health"),
        { ...env, MCP_TOKENS: tokens },
        createExecutionContext(),
      );
      expect(response.status).toBe(503);
      const body = await response.text();
      const problem = `MCP_TOKENS: entry 1: account: ${ACCOUNT_ID_RULE} (${MCP_HELP})`;
      expect(JSON.parse(body)).toEqual({
        code: "not_configured",
        message: `configuration error: ${problem}`,
        errors: [problem],
      });
      expect(body).not.toContain(SECRET);
      expect(errorLog).toHaveBeenCalledWith(`configuration error: ${problem}`);
      expect(JSON.stringify(errorLog.mock.calls)).not.toContain(SECRET);
    } finally {
      errorLog.mockRestore();
    }
  });
});
