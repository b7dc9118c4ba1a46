import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { APPROVER_CHALLENGE, authenticateApprover } from "../../src/auth/approver";
import { INTAKE_CHALLENGE, publicIntakeCaller } from "../../src/auth/intake-callers";
import { authenticateOperator, mcpChallenge, OPERATOR_CHALLENGE } from "../../src/auth/operator";
import { type Config, parseConfig } from "../../src/config/config";
import { defaultPersonId } from "../../src/config/token-maps";
import { SCOPES } from "../../src/core/scopes";
import { ACME_APPROVER_TOKEN, ACME_TOKEN } from "../helpers/tokens";

// Each kind of credential is checked by one function in auth/, which answers
// with its own WWW-Authenticate challenge.

function config(overrides: Record<string, string> = {}): Config {
  const parsed = parseConfig({ ...env, ...overrides });
  if (!parsed.ok) throw new Error(parsed.error.message);
  return parsed.value;
}

function request(authorization?: string): Request {
  return new Request("http://localhost/api/orders", authorization === undefined ? {} : { headers: { authorization } });
}

describe("MCP operator tokens", () => {
  const MCP_CHALLENGE =
    'Bearer realm="order-ops-edge", resource_metadata="http://localhost/.well-known/oauth-protected-resource/mcp"';

  it("a valid token resolves to its account, operator, role and (unless narrowed) every scope", async () => {
    expect(await authenticateOperator(config(), `Bearer ${ACME_TOKEN}`)).toEqual({
      ok: true,
      value: {
        account: "acme",
        id: defaultPersonId(ACME_TOKEN),
        operator: "Ada Ops (acme, local dev)",
        role: "operator",
        scopes: [...SCOPES],
      },
    });
  });

  it("the /mcp challenge names the resource metadata, so OAuth clients can discover the sign-in", () => {
    expect(mcpChallenge(config())).toBe(MCP_CHALLENGE);
  });

  it.each([undefined, "", "Basic abc", "Bearer"])(
    "no usable bearer token (%j): 401 with the discovery challenge",
    async (authorization) => {
      const result = await authenticateOperator(config(), authorization);
      expect(result).toEqual({
        ok: false,
        error: {
          code: "unauthorized",
          message: "send Authorization: Bearer <token> with your MCP token, or connect with OAuth",
        },
        challenge: MCP_CHALLENGE,
      });
    },
  );

  it('an unknown token: 401 with error="invalid_token"', async () => {
    const result = await authenticateOperator(config(), "Bearer nope-nope-nope");
    expect(result.ok || result.challenge).toBe(`${MCP_CHALLENGE}, error="invalid_token"`);
  });

  it("an OAuth-shaped token (user:grant:secret) that was never issued: 401 invalid_token", async () => {
    const result = await authenticateOperator(config(), "Bearer acme%2FAda:grant123:secret456");
    expect(result.ok || [result.error.message, result.challenge]).toEqual([
      "the bearer token is not a valid MCP token or OAuth access token (an OAuth token may have expired or been revoked)",
      `${MCP_CHALLENGE}, error="invalid_token"`,
    ]);
  });

  it("an approver token is told it cannot be used for MCP", async () => {
    const result = await authenticateOperator(config(), `Bearer ${ACME_APPROVER_TOKEN}`);
    expect(result.ok || result.error.message).toBe(
      "approver tokens cannot be used for MCP; approvals happen only in the approval app",
    );
  });

  it("no MCP tokens configured: 503 without a challenge (there is nothing to present)", async () => {
    const result = await authenticateOperator(config({ MCP_TOKENS: "" }), `Bearer ${ACME_TOKEN}`);
    expect(result.ok).toBe(false);
    expect(!result.ok && [result.error.code, result.challenge]).toEqual(["not_configured", undefined]);
  });
});

describe("approver tokens", () => {
  it("a valid token resolves to its approver", async () => {
    expect(await authenticateApprover(config(), `Bearer ${ACME_APPROVER_TOKEN}`)).toEqual({
      ok: true,
      value: {
        account: "acme",
        id: defaultPersonId(ACME_APPROVER_TOKEN),
        approver: "Avery Approver (acme, local dev)",
      },
    });
  });

  it.each([
    [undefined, "send Authorization: Bearer <approver token>"],
    ["Bearer not-an-approver", "that is not a valid approver token"],
    [`Bearer ${ACME_TOKEN}`, "MCP tokens cannot approve proposals; sign in with an approver token"],
  ])("%j: 401 with the approvals challenge", async (authorization, message) => {
    expect(await authenticateApprover(config(), authorization)).toEqual({
      ok: false,
      error: { code: "unauthorized", message },
      challenge: APPROVER_CHALLENGE,
    });
  });

  it("an MCP token presented for the audit export is told so in the export's words, with the same challenge", async () => {
    expect(await authenticateApprover(config(), `Bearer ${ACME_TOKEN}`, "export")).toEqual({
      ok: false,
      error: { code: "unauthorized", message: "MCP tokens cannot export the audit trail; use an approver token" },
      challenge: APPROVER_CHALLENGE,
    });
  });

  it("no approver tokens configured: 503 without a challenge", async () => {
    const result = await authenticateApprover(config({ APPROVER_TOKENS: "" }), `Bearer ${ACME_APPROVER_TOKEN}`);
    expect(!result.ok && [result.error.code, result.challenge]).toEqual(["not_configured", undefined]);
  });
});

describe("intake callers on /api", () => {
  it("/api takes MCP tokens, so it challenges for the same realm as /mcp", () => {
    expect(INTAKE_CHALLENGE).toBe(OPERATOR_CHALLENGE);
  });

  it("no header: the public intake account when configured, a challenge when not", async () => {
    expect(await publicIntakeCaller(config(), request())).toEqual({
      ok: true,
      value: { account: "acme", actor: "unauthenticated intake caller" },
    });
    const closed = await publicIntakeCaller(config({ PUBLIC_INTAKE_ACCOUNT: "" }), request());
    expect(closed).toEqual({
      ok: false,
      error: { code: "unauthorized", message: "send Authorization: Bearer <token> with an MCP token of your account" },
      challenge: INTAKE_CHALLENGE,
    });
  });

  it("an Authorization header whose value is empty, when a runtime delivers it, is a failed login: 401", async () => {
    const empty = request("");
    expect(empty.headers.has("authorization")).toBe(true);
    expect(await publicIntakeCaller(config(), empty)).toEqual({
      ok: false,
      error: { code: "unauthorized", message: "the Authorization header must be `Bearer <token>`" },
      challenge: INTAKE_CHALLENGE,
    });
  });

  it("an unknown token: 401 with the challenge", async () => {
    const result = await publicIntakeCaller(config(), request("Bearer who-is-this"));
    expect(!result.ok && [result.error.message, result.challenge]).toEqual([
      "the bearer token is not valid for this API",
      INTAKE_CHALLENGE,
    ]);
  });
});
