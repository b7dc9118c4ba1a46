import { WorkerEntrypoint } from "cloudflare:workers";
import { Hono } from "hono";
import { AccountIdSchema } from "../config";
import { fail, ok } from "../errors";
import { ACCOUNT_HEADER } from "./entrypoint-contract";
import type { AppEnv } from "../http/app-env";
import { requireConfig } from "../http/config-middleware";
import { orderApiRoutes } from "./routes";


const internalApp = new Hono<AppEnv>();
internalApp.use("*", requireConfig);
internalApp.route(
  "/api",
  orderApiRoutes(async (c) => {
    const account = AccountIdSchema.safeParse(c.req.header(ACCOUNT_HEADER));
    return account.success ? ok(account.data) : fail("bad_request", `internal callers must send a valid ${ACCOUNT_HEADER} header`);
  }),
);

/**
 * The ORDER_API target. Only a service binding can reach a named entrypoint,
 * so the account header it trusts cannot come from the public internet.
 */
export class OrderApi extends WorkerEntrypoint<Env> {
  override fetch(request: Request): Promise<Response> {
    return Promise.resolve(internalApp.fetch(request, this.env, this.ctx));
  }
}
