/** The two token maps the configuration holds (MCP_TOKENS, APPROVER_TOKENS): who each token is, as JSON. */
import { z } from "zod/v4";
import { AccountIdSchema } from "../core/account-id";
import { displayName, nameKey } from "../core/person";
import { SCOPES, type Scope, ScopeSchema } from "../core/scopes";
import { describeIssues } from "../core/zod-issues";

/**
 * What an MCP credential may do: read (viewer), also send traffic and propose (operator), also manage the account's
 * grants (admin).
 */
export const OperatorRoleSchema = z.enum(["viewer", "operator", "admin"]);
export type OperatorRole = z.infer<typeof OperatorRoleSchema>;

/** The scopes a viewer may hold: the reading half of each pair. */
export const VIEWER_SCOPES: readonly Scope[] = SCOPES.filter((scope) => scope.endsWith(":read"));

/** The role that a call needing `scope` asks for: the least one that may hold it. */
export function roleNeededFor(scope: Scope): OperatorRole {
  return VIEWER_SCOPES.includes(scope) ? "viewer" : "operator";
}

/** A person's name as a token map gives it, stored normalized (core/person.ts). */
const PersonNameSchema = z
  .string()
  .min(1)
  .max(120)
  .transform(displayName)
  .refine((name) => name !== "", "must name someone: it is empty once spaces and invisible characters are removed");

/**
 * Who a token's holder is, when one person holds several tokens (an MCP token
 * and an approver token, say): the same id on each says they are one person.
 * Absent, each token is its own person (defaultPersonId).
 */
const PersonIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._@-]{0,99}$/, "must be 1 to 100 letters, digits, '.', '_', '@' or '-', like \"avery\"")
  .optional();

export const McpTokenEntry = z
  .object({
    account: AccountIdSchema,
    id: PersonIdSchema,
    operator: PersonNameSchema,
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
/**
 * What a person may do in the approval app: see (viewer), also decide (approver), also manage grants and dead letters
 * (admin).
 */
export const ApproverRoleSchema = z.enum(["viewer", "approver", "admin"]);

export const ApproverTokenEntry = z.object({
  account: AccountIdSchema,
  id: PersonIdSchema,
  approver: PersonNameSchema,
  // Absent: an approver, as every token was before roles existed (roleOf reads it).
  role: ApproverRoleSchema.optional(),
  // The MCP operator (by id or name) this person also works under, so four eyes can tell that the proposer is
  // approving.
  operator: PersonNameSchema.optional(),
});

/** An MCP_TOKENS entry: the operator with their identity, and what the token may do (every scope unless narrowed). */
export type McpTokenHolder = Readonly<z.output<typeof McpTokenEntry> & { id: string }>;

/** An APPROVER_TOKENS entry with its identity, and the identity of the operator it is linked to, if any. */
export type Approver = Readonly<Omit<z.output<typeof ApproverTokenEntry>, "id"> & { id: string; operator_id?: string }>;

/**
 * The identity of a token's holder when the entry gives none: derived from the
 * token, so it is stable while the token is, distinct for every token, and
 * says nothing of the token (a truncated SHA-256 of a prefixed token).
 */
export function defaultPersonId(token: string): string {
  // Fetched here, not imported: esbuild hoists a node: import to the top of the bundle whatever
  // module holds it, and workerd then builds node:crypto at every cold start (3 ms of CPU; issue 44).
  const { createHash } = process.getBuiltinModule("node:crypto");
  return `token-${createHash("sha256").update(`order-ops-person:${token}`).digest("hex").slice(0, 16)}`;
}
export type ApproverRole = z.infer<typeof ApproverRoleSchema>;

export function roleOf(approver: Pick<Approver, "role">): ApproverRole {
  return approver.role ?? "approver";
}

/**
 * A JSON map of token -> holder. Problems are reported by entry number, never
 * by key: the keys are the secrets themselves and must not reach a log or a
 * response.
 */
export function jsonTokenMap<T extends z.ZodType<{ account: string; id?: string | undefined }>>(
  entry: T,
  nameOf: (holder: z.output<T>) => string,
) {
  type Holder = z.output<T> & { id: string };
  return z.string().transform((raw, ctx): Map<string, Holder> => {
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
    const holders = new Map<string, Holder>();
    // account and name key -> the first entry with that name, to refuse a second person who reads the same.
    const named = new Map<string, number>();
    Object.entries(parsed).forEach(([token, value], index) => {
      const where = `entry ${index + 1}`;
      if (token.length < 8) ctx.addIssue({ code: "custom", message: `${where}: tokens must be at least 8 characters` });
      const holder = entry.safeParse(value);
      if (!holder.success) {
        for (const problem of describeIssues(holder.error, ""))
          ctx.addIssue({ code: "custom", message: `${where}: ${problem}` });
        return;
      }
      const name = nameOf(holder.data);
      const key = `${holder.data.account}\n${nameKey(name)}`;
      const first = named.get(key);
      if (first !== undefined) {
        ctx.addIssue({
          code: "custom",
          message: `entries ${first + 1} and ${index + 1} of account ${holder.data.account} both name "${name}" once case, spacing, invisible or full-width characters and look-alike letters are set aside; four eyes could not tell those two people apart, so give each person a name of their own (one person needs only one token here)`,
        });
        return;
      }
      named.set(key, index);
      holders.set(token, { ...holder.data, id: holder.data.id ?? defaultPersonId(token) });
    });
    return holders;
  });
}

/**
 * Each approver linked to an operator (`"operator": …`, the operator's id or
 * name) carries that operator's identity, so four eyes knows the person behind
 * both tokens. A link to an operator MCP_TOKENS does not have (yet, or any
 * more: the two secrets change apart) stays a name, which four eyes compares
 * too.
 */
export function linkApprovers(
  approvers: ReadonlyMap<string, Approver>,
  operators: ReadonlyMap<string, McpTokenHolder>,
): ReadonlyMap<string, Approver> {
  const linked = new Map<string, Approver>();
  for (const [token, approver] of approvers) {
    const link = approver.operator;
    const operator =
      link === undefined
        ? undefined
        : [...operators.values()].find(
            (holder) =>
              holder.account === approver.account && (holder.id === link || nameKey(holder.operator) === nameKey(link)),
          );
    linked.set(token, operator ? { ...approver, operator_id: operator.id } : approver);
  }
  return linked;
}
