import type { Approver, Config } from "../config/config";
import { fail, ok, type Result } from "../core/errors";
import type { CredentialCheck } from "../http/credential-middleware";
import type { Authenticated } from "../http/respond";
import { authenticateBearer } from "./credential";
import { lookupToken } from "./tokens";

/** The challenge for approver tokens, wherever a script presents one (/api/approvals, /api/audit). */
export const APPROVER_CHALLENGE = 'Bearer realm="order-ops-edge approvals"';

export const NO_APPROVERS_MESSAGE =
  'no approver tokens are configured; set APPROVER_TOKENS with `wrangler secret put APPROVER_TOKENS` (value {"<token>":{"account":"acme","approver":"Avery"}})';

/** What the approver token is being used for: an MCP token presented there is told, in those words, that it cannot. */
type ApproverUse = "approve" | "export" | "dead-letters";

const MCP_TOKEN_REFUSAL: Readonly<Record<ApproverUse, string>> = {
  approve: "MCP tokens cannot approve proposals; sign in with an approver token",
  export: "MCP tokens cannot export the audit trail; use an approver token",
  "dead-letters": "MCP tokens cannot read the dead letters; use an approver token with the admin role",
};

/** The approver a token belongs to. An MCP token gets its own refusal: it is the mistake people make. */
export async function approverForToken(
  config: Config,
  token: string,
  use: ApproverUse = "approve",
): Promise<Result<Approver>> {
  const approver = await lookupToken(config.approverTokens, token);
  if (approver) return ok(approver);
  const isMcpToken = (await lookupToken(config.mcpTokens, token)) !== undefined;
  return fail("unauthorized", isMcpToken ? MCP_TOKEN_REFUSAL[use] : "that is not a valid approver token");
}

/** The approver behind `Authorization: Bearer <approver token>`. */
export async function authenticateApprover(
  config: Config,
  authorization: string | undefined,
  use: ApproverUse = "approve",
): Promise<Authenticated<Approver>> {
  if (config.approverTokens.size === 0) return fail("not_configured", NO_APPROVERS_MESSAGE);
  return authenticateBearer(authorization, {
    challenge: APPROVER_CHALLENGE,
    missing: "send Authorization: Bearer <approver token>",
    holderOf: (token) => approverForToken(config, token, use),
  });
}

/**
 * The approver bearer check for requireCredential, with the approvals limit:
 * every scripted approver surface counts against one budget per approver, so
 * exporting cannot be used to get around the approval API's limit or the
 * other way round.
 */
export function approverBearer(use: ApproverUse): CredentialCheck<Approver> {
  return {
    authenticate: (config, request) =>
      authenticateApprover(config, request.headers.get("authorization") ?? undefined, use),
    rateLimit: { surface: "approvals", key: (holder) => `${holder.account}:${holder.approver}` },
  };
}
