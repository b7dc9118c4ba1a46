/** The two token maps the configuration holds (MCP_TOKENS, APPROVER_TOKENS): who each token is, as JSON. */
import { z } from "zod/v4";
import { AccountIdSchema } from "../core/account-id";
import { SCOPES, type Scope, ScopeSchema } from "../core/scopes";
import { describeIssues } from "../core/zod-issues";

/** What an MCP credential may do: read (viewer), also send traffic and propose (operator), also manage the account's grants (admin). */
export const OperatorRoleSchema = z.enum(["viewer", "operator", "admin"]);
export type OperatorRole = z.infer<typeof OperatorRoleSchema>;

/** The scopes a viewer may hold: the reading half of each pair. */
export const VIEWER_SCOPES: readonly Scope[] = SCOPES.filter((scope) => scope.endsWith(":read"));

/** The role that a call needing `scope` asks for: the least one that may hold it. */
export function roleNeededFor(scope: Scope): OperatorRole {
  return VIEWER_SCOPES.includes(scope) ? "viewer" : "operator";
}

export const McpTokenEntry = z
  .object({
    account: AccountIdSchema,
    operator: z.string().min(1).max(120),
    // Absent: an operator, as every token was before roles existed.
    role: OperatorRoleSchema.default("operator"),
    // Absent means every scope the role allows: tokens configured before scopes existed keep working.
    scopes: z
      .array(ScopeSchema)
      .min(1, `list at least one scope, or leave scopes out for all of ${SCOPES.join(", ")}`)
      .optional(),
  })
  .superRefine((entry, ctx) => {
    const beyond =
      entry.role === "viewer" ? (entry.scopes ?? []).filter((scope) => !VIEWER_SCOPES.includes(scope)) : [];
    if (beyond.length > 0)
      ctx.addIssue({
        code: "custom",
        path: ["scopes"],
        message: `a viewer may hold only ${VIEWER_SCOPES.join(", ")}; ${beyond.join(", ")} needs the operator role`,
      });
  })
  .transform(({ scopes, ...entry }) => {
    const allowed = entry.role === "viewer" ? VIEWER_SCOPES : SCOPES;
    const held: readonly Scope[] = SCOPES.filter(
      (scope) => allowed.includes(scope) && (scopes ?? allowed).includes(scope),
    );
    return { ...entry, scopes: held };
  });
/** What a person may do in the approval app: see (viewer), also decide (approver), also manage grants and dead letters (admin). */
export const ApproverRoleSchema = z.enum(["viewer", "approver", "admin"]);

export const ApproverTokenEntry = z.object({
  account: AccountIdSchema,
  approver: z.string().min(1).max(120),
  // Absent: an approver, as every token was before roles existed (roleOf reads it).
  role: ApproverRoleSchema.optional(),
  // The MCP operator name this person also works under, so four eyes can tell that the proposer is approving.
  operator: z.string().min(1).max(120).optional(),
});

/** An MCP_TOKENS entry: the operator, and what the token may do (every scope unless narrowed). */
export type McpTokenHolder = Readonly<z.output<typeof McpTokenEntry>>;

export type Approver = Readonly<z.output<typeof ApproverTokenEntry>>;
export type ApproverRole = z.infer<typeof ApproverRoleSchema>;

export function roleOf(approver: Pick<Approver, "role">): ApproverRole {
  return approver.role ?? "approver";
}

/**
 * A JSON map of token -> holder. Problems are reported by entry number, never
 * by key: the keys are the secrets themselves and must not reach a log or a
 * response.
 */
export function jsonTokenMap<T extends z.ZodType>(entry: T) {
  return z.string().transform((raw, ctx): Map<string, z.output<T>> => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      ctx.addIssue({ code: "custom", message: `not valid JSON; expected {"<token>": {...}}` });
      return z.NEVER;
    }
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
      ctx.addIssue({ code: "custom", message: `must be a JSON object of {"<token>": {...}}` });
      return z.NEVER;
    }
    // A Map, not an object: a token such as "__proto__" must survive as a key.
    const holders = new Map<string, z.output<T>>();
    Object.entries(parsed).forEach(([token, value], index) => {
      const where = `entry ${index + 1}`;
      if (token.length < 8) ctx.addIssue({ code: "custom", message: `${where}: tokens must be at least 8 characters` });
      const holder = entry.safeParse(value);
      if (!holder.success) {
        for (const problem of describeIssues(holder.error, ""))
          ctx.addIssue({ code: "custom", message: `${where}: ${problem}` });
        return;
      }
      holders.set(token, holder.data);
    });
    return holders;
  });
}
