import { Hono } from "hono";
import { approvalApi } from "./approval/api";
import { approvalPages } from "./approval/browser";
import { auditExport } from "./approval/audit-export";
import { runPages } from "./approval/runs";
import { publicIntakeCaller } from "./auth/intake-callers";
import type { AppEnv } from "./http/app-env";
import { requireConfig } from "./http/config-middleware";
import { installErrorHandlers } from "./http/error-handlers";
import { originPolicy } from "./http/origin-guard";
import { methodNotAllowed } from "./http/respond";
import { mcpRoutes } from "./mcp/route";
import { consentPages } from "./oauth/consent";
import { oauthDiscovery, oauthEndpoints } from "./oauth/routes";
import { healthReport, orderApiRoutes } from "./order-api/routes";
import { ensureSeedLoaded } from "./store/seed-loader";

const app = new Hono<AppEnv>();

// Public liveness: no auth, no secrets, and no config needed to answer.
app.get("/health", async (c) => {
  await ensureSeedLoaded(c.env.DB);
  return c.json(healthReport());
});
app.all("/health", methodNotAllowed(["GET"]));

app.route("/mcp", mcpRoutes);

// OAuth 2.1 for clients that cannot send a static header (claude.ai, ChatGPT).
app.route("/.well-known", oauthDiscovery);
app.route("/oauth", oauthEndpoints);
app.route("/authorize", consentPages);

app.route("/approvals", approvalPages);
app.route("/api/approvals", approvalApi);
app.route("/api/audit", auditExport);
app.route("/runs", runPages);

app.use("/api/*", requireConfig, originPolicy("this API"));
app.route(
  "/api",
  orderApiRoutes({
    authenticate: publicIntakeCaller,
    rateLimit: { surface: "api", key: (caller) => `${caller.account}:${caller.actor}` },
  }),
);

installErrorHandlers(app);

export default app satisfies ExportedHandler<Env>;
export { AccountAgent } from "./account/account-agent";
export { OrderApi } from "./order-api/entrypoint";
