// The first account's credentials that `npm run deploy` sets: one MCP token
// (for the agent) and one approver token (for a person), in the JSON shapes
// MCP_TOKENS and APPROVER_TOKENS take (src/config/token-maps.ts). A deployed
// Worker refuses tokens under 32 characters and the committed development
// ones (src/config/config.ts, deployment-checks.ts), so neither is accepted
// here either. Pure and free of Node APIs: the suite runs it in the Workers
// runtime against the Worker's own configuration parser.

import { DEVELOPMENT_TOKENS } from "../../src/config/deployment-checks.ts";
import { AccountIdSchema } from "../../src/core/account-id.ts";

/** What production requires of every token (src/config/config.ts). */
export const TOKEN_MIN_LENGTH = 32;

/** The account the operations dataset (seed/operations.json) fills, so the demo has orders to look at. */
export const DEFAULT_ACCOUNT = "acme";

export type TokenKind = "mcp" | "approver";

/** The secret each kind of token is kept in. */
export const TOKEN_SECRET: Readonly<Record<TokenKind, "MCP_TOKENS" | "APPROVER_TOKENS">> = {
  mcp: "MCP_TOKENS",
  approver: "APPROVER_TOKENS",
};

/** 32 random bytes as hex, as `openssl rand -hex 32` makes them: 64 characters, safe in a header. */
export function randomToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** Why a token someone passed cannot be deployed, or undefined when it can. Never repeats the token. */
export function tokenProblem(kind: TokenKind, token: string): string | undefined {
  const name = kind === "mcp" ? "the MCP token" : "the approver token";
  if (DEVELOPMENT_TOKENS.has(token))
    return `${name} is one of the development tokens in .dev.vars, which anyone can read; pass one of your own (\`openssl rand -hex 32\`) or none, and one is made for you`;
  if (token.length < TOKEN_MIN_LENGTH)
    return `${name} is ${token.length} characters; a deployed Worker needs at least ${TOKEN_MIN_LENGTH} (\`openssl rand -hex 32\` makes one)`;
  if (!/^[\x21-\x7e]+$/.test(token))
    return `${name} has a space or a character outside printable ASCII; it is sent in an Authorization header, so it cannot`;
  return undefined;
}

/** Why the account id cannot name an account, or undefined when it can (src/core/account-id.ts). */
export function accountProblem(account: string): string | undefined {
  const parsed = AccountIdSchema.safeParse(account);
  return parsed.success ? undefined : `--account ${JSON.stringify(account)}: ${parsed.error.issues[0]?.message}`;
}

/** MCP_TOKENS for one operator of `account`, with every scope an operator holds. */
export function mcpTokensSecret(account: string, token: string): string {
  return JSON.stringify({ [token]: { account, operator: `Operator (${account}, deployed demo)` } });
}

/** APPROVER_TOKENS for one approver of `account`. */
export function approverTokensSecret(account: string, token: string): string {
  return JSON.stringify({ [token]: { account, approver: `Approver (${account}, deployed demo)` } });
}

/** The secret's value for one kind of token. */
export function tokenSecret(kind: TokenKind, account: string, token: string): string {
  return kind === "mcp" ? mcpTokensSecret(account, token) : approverTokensSecret(account, token);
}
