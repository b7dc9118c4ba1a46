import type { Config, Operator } from "../config/config";
import { fail, ok } from "../core/errors";
import type { Authenticated } from "../http/respond";
import { challenged } from "./credential";
import { bearerToken, lookupToken } from "./tokens";

/** The challenge for MCP operator tokens (and for /api, which takes the same tokens). */
export const OPERATOR_CHALLENGE = 'Bearer realm="order-ops-edge"';

/**
 * The MCP operator behind `Authorization: Bearer <token>`, resolved on the
 * server side to {account, operator}. With no MCP token configured every call
 * is refused (503): failing closed beats an open /mcp.
 */
export async function authenticateOperator(config: Config, authorization: string | undefined): Promise<Authenticated<Operator>> {
  if (config.mcpTokens.size === 0) {
    return fail(
      "not_configured",
      'no MCP tokens are configured, so /mcp refuses every call; set MCP_TOKENS with `wrangler secret put MCP_TOKENS` (value {"<token>":{"account":"acme","operator":"Ada"}})',
    );
  }
  const token = bearerToken(authorization);
  if (token === undefined) return challenged(OPERATOR_CHALLENGE, "send Authorization: Bearer <token> with your MCP token");
  const operator = await lookupToken(config.mcpTokens, token);
  if (operator) return ok(operator);
  const isApprover = (await lookupToken(config.approverTokens, token)) !== undefined;
  return challenged(
    `${OPERATOR_CHALLENGE}, error="invalid_token"`,
    isApprover ? "approver tokens cannot be used for MCP; approvals happen only in the approval app" : "the bearer token is not a valid MCP token",
  );
}
