/**
 * Scope checks for /mcp. Each tool and resource declares the one scope it
 * needs (mcp/); a caller holds the scopes of its static token or its OAuth
 * grant. Listing hides what is not granted; calling it is refused here.
 */
import type { Config } from "../config/config";
import { type OperatorRole, roleNeededFor } from "../config/token-maps";
import { fail } from "../core/errors";
import { SCOPES, type Scope } from "../core/scopes";
import type { Refusal } from "../http/respond";
import { mcpChallenge } from "./operator";

export function isGranted(granted: readonly Scope[], needed: Scope): boolean {
  return granted.includes(needed);
}

/**
 * 403 insufficient_scope for a call outside the grant (RFC 6750 §3.1, MCP
 * step-up). The challenge names the scopes already granted plus the missing
 * one: a client that re-authorizes with that list keeps what it had, since a
 * new grant replaces the old one.
 */
export function insufficientScope(
  config: Config,
  granted: readonly Scope[],
  needed: Scope,
  what: string,
): { ok: false } & Refusal {
  const wanted = SCOPES.filter((scope) => scope === needed || granted.includes(scope));
  const challenge = `${mcpChallenge(config)}, error="insufficient_scope", scope="${wanted.join(" ")}"`;
  const holds = granted.length > 0 ? granted.join(", ") : "no scopes";
  return {
    ...fail(
      "forbidden",
      `${what} needs the ${needed} scope, and this credential holds ${holds}; connect again and allow ${needed}, or use a token that has it`,
    ),
    challenge,
  };
}

/**
 * 403 for a call the credential's role can never make: no new consent helps
 * a viewer, so there is no step-up challenge, only the role that is needed.
 */
export function insufficientRole(
  role: OperatorRole,
  needed: Scope,
  what: string,
): ({ ok: false } & Refusal) | undefined {
  const wanted = roleNeededFor(needed);
  if (role !== "viewer" || wanted === "viewer") return undefined;
  return fail(
    "forbidden",
    `${what} needs the ${wanted} role (it uses ${needed}), and this credential's role is viewer, which may only read; use a token with the operator or admin role`,
  );
}
