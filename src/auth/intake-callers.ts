import type { Context } from "hono";
import { AccountIdSchema } from "../core/account-id";
import { fail, ok, type Result } from "../core/errors";
import type { AppEnv } from "../http/app-env";
import { ACCOUNT_HEADER, ACTOR_HEADER } from "../orders/intake-schemas";
import type { IntakeCaller } from "../store/intake-orders";
import { bearerToken, lookupToken } from "./tokens";

/**
 * Who is calling the public /api: an MCP token's account, or, when the operator
 * configured PUBLIC_INTAKE_ACCOUNT (local dev does), that account for
 * unauthenticated callers. Approver tokens never work here.
 */
export async function publicIntakeCaller(c: Context<AppEnv>): Promise<Result<IntakeCaller>> {
  const config = c.get("config");
  const token = bearerToken(c.req.header("authorization"));
  // A header that is present but unusable (even empty) is a failed login, not an anonymous call.
  if (c.req.raw.headers.has("authorization") && token === undefined) {
    return fail("unauthorized", "the Authorization header must be `Bearer <token>`");
  }
  if (token !== undefined) {
    const holder = await lookupToken(config.mcpTokens, token);
    return holder ? ok({ account: holder.account, actor: holder.operator }) : fail("unauthorized", "the bearer token is not valid for this API");
  }
  if (config.publicIntakeAccount) return ok({ account: config.publicIntakeAccount, actor: "unauthenticated intake caller" });
  return fail("unauthorized", "send Authorization: Bearer <token> with an MCP token of your account");
}

/**
 * Who is calling through the ORDER_API binding: the account and operator the
 * AccountAgent names in headers. Only a service binding reaches this mount.
 */
export async function bindingIntakeCaller(c: Context<AppEnv>): Promise<Result<IntakeCaller>> {
  const account = AccountIdSchema.safeParse(c.req.header(ACCOUNT_HEADER));
  if (!account.success) return fail("bad_request", `internal callers must send a valid ${ACCOUNT_HEADER} header`);
  let actor = "ORDER_API caller";
  try {
    actor = decodeURIComponent(c.req.header(ACTOR_HEADER) ?? "").trim().slice(0, 120) || actor;
  } catch {
    // A malformed actor header only loses the name, never the request.
  }
  return ok({ account: account.data, actor });
}
