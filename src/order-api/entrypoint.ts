import { WorkerEntrypoint } from "cloudflare:workers";
import { Hono } from "hono";
import { bindingIntakeCaller } from "../auth/intake-callers";
import type { AppEnv } from "../http/app-env";
import { requireConfig } from "../http/config-middleware";
import { installErrorHandlers } from "../http/error-handlers";
import { orderApiRoutes } from "./routes";

const internalApp = new Hono<AppEnv>();
internalApp.use("*", requireConfig);
internalApp.route("/api", orderApiRoutes({ authenticate: bindingIntakeCaller }));
installErrorHandlers(internalApp);

/**
 * The ORDER_API target: the intake contract (GET /api/health, POST
 * /api/orders) that any target must offer. Only a service binding can reach a
 * named entrypoint, so the account it is told in a header cannot come from
 * the public internet.
 */
export class OrderApi extends WorkerEntrypoint<Env> {
  override fetch(request: Request): Promise<Response> {
    return Promise.resolve(internalApp.fetch(request, this.env, this.ctx));
  }
}
