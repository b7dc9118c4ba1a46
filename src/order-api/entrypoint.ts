import { WorkerEntrypoint } from "cloudflare:workers";
import { Hono } from "hono";
import type { AppEnv } from "../http/app-env";
import { installErrorHandlers } from "../http/error-handlers";

/** Built on the first call rather than at startup, like the Worker's own surfaces. */
let internalApp: Promise<Hono<AppEnv>> | undefined;
const loadInternalApp = (): Promise<Hono<AppEnv>> =>
  (internalApp ??= Promise.all([
    import("../http/config-middleware"),
    import("../auth/intake-callers"),
    import("./routes"),
  ]).then(([{ requireConfig }, { bindingIntakeCaller }, { orderApiRoutes }]) => {
    const app = new Hono<AppEnv>();
    app.use("*", requireConfig);
    app.route("/api", orderApiRoutes({ authenticate: bindingIntakeCaller }));
    installErrorHandlers(app);
    return app;
  }));

/**
 * The ORDER_API target: the intake contract (GET /api/health, POST
 * /api/orders) that any target must offer. Only a service binding can reach a
 * named entrypoint, so the account it is told in a header cannot come from
 * the public internet.
 */
export class OrderApi extends WorkerEntrypoint<Env> {
  override async fetch(request: Request): Promise<Response> {
    return (await loadInternalApp()).fetch(request, this.env, this.ctx);
  }
}
