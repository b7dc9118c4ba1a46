import type { Approver, Config } from "../config/config";
import { fail, ok, type Result } from "../core/errors";
import type { Authenticated } from "../http/respond";
import { challenged } from "./credential";
import { bearerToken, lookupToken } from "./tokens";

/** The challenge for approver tokens on the scripted approval API. */
export const APPROVER_CHALLENGE = 'Bearer realm="order-ops-edge approvals"';

export const NO_APPROVERS_MESSAGE =
  'no approver tokens are configured; set APPROVER_TOKENS with `wrangler secret put APPROVER_TOKENS` (value {"<token>":{"account":"acme","approver":"Avery"}})';

/** The approver a token belongs to. An MCP token gets its own refusal: it is the mistake people make. */
export async function approverForToken(config: Config, token: string): Promise<Result<Approver>> {
  const approver = await lookupToken(config.approverTokens, token);
  if (approver) return ok(approver);
  const isMcpToken = (await lookupToken(config.mcpTokens, token)) !== undefined;
  return fail("unauthorized", isMcpToken ? "MCP tokens cannot approve proposals; sign in with an approver token" : "that is not a valid approver token");
}

/** The approver behind `Authorization: Bearer <approver token>` on /api/approvals. */
export async function authenticateApprover(config: Config, authorization: string | undefined): Promise<Authenticated<Approver>> {
  if (config.approverTokens.size === 0) return fail("not_configured", NO_APPROVERS_MESSAGE);
  const token = bearerToken(authorization);
  if (token === undefined) return challenged(APPROVER_CHALLENGE, "send Authorization: Bearer <approver token>");
  const approver = await approverForToken(config, token);
  return approver.ok ? approver : { ...approver, challenge: APPROVER_CHALLENGE };
}
