import type { Config } from "../config/config";
import { AccountIdSchema } from "../core/account-id";
import { fail, ok, type Result } from "../core/errors";
import type { Authenticated } from "../http/respond";
import { ACCOUNT_HEADER, ACTOR_HEADER, type IntakeCaller } from "../orders/intake-schemas";
import { authenticateBearer, challenged } from "./credential";
import { mcpTokenHolder, OPERATOR_CHALLENGE } from "./operator";

/** /api takes MCP tokens, so it challenges for the same realm as /mcp. */
export const INTAKE_CHALLENGE = OPERATOR_CHALLENGE;

/**
 * Who is calling the public /api: an MCP token's account, or, when the operator
 * configured PUBLIC_INTAKE_ACCOUNT (local dev does), that account for
 * unauthenticated callers. Approver tokens never work here.
 *
 * workerd removes an empty Authorization header before the Worker runs (an
 * empty custom header does arrive), so a raw `Authorization: ` reaches this
 * code as no header at all and counts as anonymous; the header is refused
 * whenever it does arrive. Evidence: test/auth/empty-authorization.test.ts.
 */
export async function publicIntakeCaller(config: Config, request: Request): Promise<Authenticated<IntakeCaller>> {
  const authorization = request.headers.get("authorization");
  if (authorization === null) {
    if (config.publicIntakeAccount)
      return ok({ account: config.publicIntakeAccount, actor: "unauthenticated intake caller" });
    return challenged(INTAKE_CHALLENGE, "send Authorization: Bearer <token> with an MCP token of your account");
  }
  // A header that is present but unusable (even empty) is a failed login, not an anonymous call.
  const holder = await authenticateBearer(authorization, {
    challenge: INTAKE_CHALLENGE,
    missing: "the Authorization header must be `Bearer <token>`",
    holderOf: mcpTokenHolder(config, "the bearer token is not valid for this API"),
  });
  return holder.ok ? ok({ account: holder.value.account, actor: holder.value.operator }) : holder;
}

/** Account headers already found valid. Every order of a batch names the same account, so each is checked once. */
const validBindingAccounts = new Set<string>();
const MAX_REMEMBERED_ACCOUNTS = 1_000;

function bindingAccount(header: string | null): string | undefined {
  if (header === null) return undefined;
  if (validBindingAccounts.has(header)) return header;
  if (!AccountIdSchema.safeParse(header).success) return undefined;
  if (validBindingAccounts.size >= MAX_REMEMBERED_ACCOUNTS) validBindingAccounts.clear();
  validBindingAccounts.add(header);
  return header;
}

/**
 * Who is calling through the ORDER_API binding: the account and operator the
 * AccountAgent names in headers. Only a service binding reaches this mount.
 */
export async function bindingIntakeCaller(_config: Config, request: Request): Promise<Result<IntakeCaller>> {
  const account = bindingAccount(request.headers.get(ACCOUNT_HEADER));
  if (account === undefined) return fail("bad_request", `internal callers must send a valid ${ACCOUNT_HEADER} header`);
  let actor = "ORDER_API caller";
  try {
    actor =
      decodeURIComponent(request.headers.get(ACTOR_HEADER) ?? "")
        .trim()
        .slice(0, 120) || actor;
  } catch {
    // A malformed actor header only loses the name, never the request.
  }
  return ok({ account, actor });
}
