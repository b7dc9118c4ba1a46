import { Hono } from "hono";
import { publicApiAccount } from "./auth/callers";
import type { AppEnv } from "./http/app-env";
import { requireConfig } from "./http/config-middleware";
import { errorResponse, methodNotAllowed } from "./http/respond";
import { mcpRoutes } from "./mcp/route";
import { healthReport, orderApiRoutes } from "./order-api/routes";
import { ensureSeedLoaded } from "./order-api/seed-loader";

const app = new Hono<AppEnv>();

// Public liveness: no auth, no secrets, and no config needed to answer.
app.get("/health", async (c) => {
  await ensureSeedLoaded(c.env.DB);
  return c.json(healthReport());
});
app.all("/health", methodNotAllowed(["GET"]));

app.route("/mcp", mcpRoutes);

app.use("/api/*", requireConfig);
app.route("/api", orderApiRoutes(publicApiAccount));

app.notFound((c) => errorResponse(c, { code: "not_found", message: `no route for ${c.req.method} ${c.req.path}` }));
app.onError((error, c) => {
  // Internal detail goes to the log only; the caller gets a generic message.
  console.error(`unhandled error on ${c.req.method} ${c.req.path}:`, error);
  return errorResponse(c, { code: "internal", message: "internal error; the server log has the details" });
});

export default app satisfies ExportedHandler<Env>;
export { AccountAgent } from "./account/account-agent";
export { OrderApi } from "./order-api/entrypoint";
