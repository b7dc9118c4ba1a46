import type { Config, McpTokenHolder } from "../config/config";
import { fail, ok, type Result } from "../core/errors";
import type { Authenticated } from "../http/respond";
import { authenticateBearer } from "./credential";
import { resourceMetadataChallenge } from "./mcp-resource";
import { lookupToken } from "./tokens";

/** The challenge for MCP tokens on /api, which takes them but not OAuth tokens. */
export const OPERATOR_CHALLENGE = 'Bearer realm="order-ops-edge"';

/** Who is calling /mcp, and what they may do there. */
export type McpCaller = McpTokenHolder;

/**
 * The holder of an OAuth access token for /mcp, if it is one: the OAuth
 * server's check (oauth/access-tokens.ts), handed in by the /mcp route so
 * that this credential check knows nothing of the server behind it.
 */
export type OAuthCaller = (token: string) => Promise<McpCaller | undefined>;

/**
 * The /mcp challenge names the resource metadata (RFC 9728), which is how an
 * OAuth client (claude.ai, ChatGPT) discovers where to sign in.
 */
export function mcpChallenge(config: Config): string {
  return config.oauth ? `${OPERATOR_CHALLENGE}, ${resourceMetadataChallenge(config.oauth)}` : OPERATOR_CHALLENGE;
}

/**
 * The caller behind `Authorization: Bearer <token>` on /mcp: a static MCP
 * token (Claude Code, Codex) or an OAuth access token (claude.ai, ChatGPT),
 * resolved on the server side to {account, operator, scopes}. With no MCP
 * token configured every call is refused (503): nobody could sign in to get
 * an OAuth token either, and failing closed beats an open /mcp.
 */
export async function authenticateOperator(
  config: Config,
  authorization: string | undefined,
  oauthCaller?: OAuthCaller,
): Promise<Authenticated<McpCaller>> {
  if (config.mcpTokens.size === 0) {
    return fail(
      "not_configured",
      'no MCP tokens are configured, so /mcp refuses every call; set MCP_TOKENS with `wrangler secret put MCP_TOKENS` (value {"<token>":{"account":"acme","operator":"Ada"}})',
    );
  }
  return authenticateBearer(authorization, {
    challenge: mcpChallenge(config),
    missing: "send Authorization: Bearer <token> with your MCP token, or connect with OAuth",
    invalidToken: true,
    holderOf: async (token) => {
      const holder =
        (await lookupToken(config.mcpTokens, token)) ??
        (config.oauth && oauthCaller ? await oauthCaller(token) : undefined);
      if (holder) return ok(holder);
      const isApprover = (await lookupToken(config.approverTokens, token)) !== undefined;
      return fail(
        "unauthorized",
        isApprover
          ? "approver tokens cannot be used for MCP; approvals happen only in the approval app"
          : "the bearer token is not a valid MCP token or OAuth access token (an OAuth token may have expired or been revoked)",
      );
    },
  });
}

/** The holder of a static MCP token, or `refusal`: for the surfaces that take no OAuth token. */
export function mcpTokenHolder(config: Config, refusal: string): (token: string) => Promise<Result<McpTokenHolder>> {
  return async (token) => {
    const holder = await lookupToken(config.mcpTokens, token);
    return holder ? ok(holder) : fail("unauthorized", refusal);
  };
}

/**
 * An MCP token holder by static token alone: managing OAuth grants takes the
 * operator's own token, never an OAuth token a client holds.
 */
export function authenticateMcpToken(config: Config, request: Request): Promise<Authenticated<McpTokenHolder>> {
  return authenticateBearer(request.headers.get("authorization"), {
    challenge: OPERATOR_CHALLENGE,
    missing: "send Authorization: Bearer <token> with your MCP token",
    invalidToken: true,
    holderOf: mcpTokenHolder(config, "the bearer token is not a valid MCP token (OAuth tokens cannot manage grants)"),
  });
}
