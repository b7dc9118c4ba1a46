import { z } from "zod/v4";

/**
 * The four things a credential may be allowed to do over MCP. Declared here,
 * below config/, because MCP_TOKENS entries may narrow a token to some of them;
 * which tool needs which scope is declared on each tool (mcp/), and grants
 * are checked in auth/scope-check.ts. No scope can approve a proposal: approval
 * belongs to the approval app and its own credential.
 */
export const SCOPES = ["traffic:read", "traffic:send", "orders:read", "orders:propose"] as const;

export const ScopeSchema = z.enum(SCOPES, { message: `use one of ${SCOPES.join(", ")}` });

export type Scope = z.output<typeof ScopeSchema>;

/** What each scope lets an agent do, in words a person deciding on the consent page can act on. */
export const SCOPE_DESCRIPTIONS: Readonly<Record<Scope, string>> = {
  "traffic:read": "check the order API, preview synthetic orders, read the catalog and the traffic history",
  "traffic:send": "send synthetic orders to the order API and start or stop traffic runs",
  "orders:read": "read this account's orders, exceptions, audit logs and proposals",
  "orders:propose":
    "propose fixes, and apply a fix after a person approved it in the approval app; on demo servers, also create a simulated stuck order (simulate_new_failure)",
};

/** The known scopes among `values`, once each, in the canonical order above. */
export function knownScopes(values: readonly string[]): Scope[] {
  return SCOPES.filter((scope) => values.includes(scope));
}
