import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { isCiBuild, parseDeployArgs } from "../../scripts/lib/deploy-args.ts";
import {
  approverTokensSecret,
  mcpTokensSecret,
  randomToken,
  TOKEN_MIN_LENGTH,
  tokenProblem,
} from "../../scripts/lib/deploy-credentials.ts";
import { parseConfig } from "../../src/config/config";

// The tokens `npm run deploy` makes, or takes from the person, must pass the
// deployed Worker's own checks: parsed here by its configuration parser, as
// production, so the script and the Worker cannot drift apart.

/** The Worker's configuration as a deployment has it, with these two secrets. */
function deployed(mcpTokens: string, approverTokens: string) {
  return parseConfig({
    ENVIRONMENT: "production",
    PUBLIC_BASE_URL: "https://order-ops-edge.ada.workers.dev",
    OAUTH_KV: env.OAUTH_KV,
    MCP_TOKENS: mcpTokens,
    APPROVER_TOKENS: approverTokens,
  });
}

describe("the credentials npm run deploy sets", () => {
  it("are 64 hex characters, new every time", () => {
    const tokens = new Set([randomToken(), randomToken(), randomToken()]);
    expect(tokens.size).toBe(3);
    for (const token of tokens) expect(token).toMatch(/^[0-9a-f]{64}$/);
  });

  it("pass a deployed Worker's checks: an operator with every scope, and an approver, of the account", () => {
    const mcp = randomToken();
    const approver = randomToken();
    const config = deployed(mcpTokensSecret("acme", mcp), approverTokensSecret("acme", approver));
    if (!config.ok) throw new Error(config.error.errors?.join("; ") ?? config.error.message);
    expect(config.value.mcpTokens.get(mcp)).toMatchObject({ account: "acme", role: "operator" });
    expect(config.value.mcpTokens.get(mcp)?.scopes.length).toBeGreaterThan(3);
    expect(config.value.approverTokens.get(approver)).toMatchObject({ account: "acme" });
  });

  it("a passed token is held to the Worker's own length rule: the shortest one accepted passes, one less fails both", () => {
    const shortest = "s".repeat(TOKEN_MIN_LENGTH);
    expect(tokenProblem("mcp", shortest)).toBeUndefined();
    expect(deployed(mcpTokensSecret("acme", shortest), approverTokensSecret("acme", randomToken())).ok).toBe(true);
    const tooShort = shortest.slice(1);
    expect(tokenProblem("mcp", tooShort)).toBe(
      "the MCP token is 31 characters; a deployed Worker needs at least 32 (`openssl rand -hex 32` makes one)",
    );
    expect(deployed(mcpTokensSecret("acme", tooShort), approverTokensSecret("acme", randomToken())).ok).toBe(false);
  });

  it("refuses the committed development tokens and tokens that cannot go in a header, without repeating them", () => {
    const devToken = Object.keys(JSON.parse(env.MCP_TOKENS) as object)[0] ?? "";
    expect(tokenProblem("mcp", devToken)).toMatch(/^the MCP token is one of the development tokens in \.dev\.vars/);
    const spaced = `${"x".repeat(20)} ${"y".repeat(20)}`;
    expect(tokenProblem("approver", spaced)).toMatch(/^the approver token has a space/);
    expect(`${tokenProblem("mcp", devToken)}${tokenProblem("approver", spaced)}`).not.toContain(devToken);
  });
});

describe("parseDeployArgs", () => {
  it("defaults: the acme account, whose demo orders are loaded, and new tokens", () => {
    expect(parseDeployArgs([], {})).toEqual({
      ok: true,
      value: { dryRun: false, help: false, account: "acme", passed: {}, ci: false, demoData: true },
    });
    expect(parseDeployArgs(["--no-demo-data"], {})).toMatchObject({ ok: true, value: { demoData: false } });
  });

  it("takes values after a space or an =, and tokens from the environment, flags first", () => {
    const mcp = "m".repeat(40);
    const parsed = parseDeployArgs(["--dry-run", "--account=globex", "--mcp-token", mcp], {
      ORDER_OPS_MCP_TOKEN: "ignored because the flag wins".padEnd(40, "!"),
      ORDER_OPS_APPROVER_TOKEN: "a".repeat(40),
    });
    expect(parsed).toEqual({
      ok: true,
      value: {
        dryRun: true,
        help: false,
        account: "globex",
        passed: { mcp, approver: "a".repeat(40) },
        ci: false,
        demoData: true,
      },
    });
  });

  it("refuses the same token for both roles, a flag without a value, and an unknown option", () => {
    const same = "s".repeat(40);
    const refused = (args: string[]) => {
      const parsed = parseDeployArgs(args, {});
      return parsed.ok ? "" : parsed.error.message;
    };
    expect(refused(["--mcp-token", same, "--approver-token", same])).toBe(
      "the MCP token and the approver token are the same; an approver credential must differ from every MCP token",
    );
    expect(refused(["--account"])).toMatch(/^--account needs a value/);
    expect(refused(["--yes"])).toMatch(/^unknown option "--yes"/);
  });

  it("knows a CI build by WORKERS_CI (Workers Builds) or CI, unless it says false", () => {
    expect(isCiBuild({ WORKERS_CI: "1" })).toBe(true);
    expect(isCiBuild({ CI: "true" })).toBe(true);
    expect(isCiBuild({ CI: "false" })).toBe(false);
    expect(isCiBuild({})).toBe(false);
  });
});
