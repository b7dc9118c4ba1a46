import type { Context } from "hono";
import { fail, ok, type Result } from "../errors";
import type { AppEnv } from "../http/app-env";
import type { IntakeCaller } from "../store/intake-orders";
import { bearerToken, lookupToken } from "./tokens";

/**
 * Who is calling the public /api: an MCP token's account, or, when the operator
 * configured PUBLIC_INTAKE_ACCOUNT (local dev does), that account for
 * unauthenticated callers. Approver tokens never work here.
 */
export async function publicApiCaller(c: Context<AppEnv>): Promise<Result<IntakeCaller>> {
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
