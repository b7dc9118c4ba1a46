import { Hono } from "hono";
import type { AppEnv } from "./http/app-env";
import { installErrorHandlers } from "./http/error-handlers";
import { mountLazily } from "./http/lazy-routes";
import { noSniff } from "./http/page-headers";

const app = new Hono<AppEnv>();

app.use("*", noSniff);

// Each surface loads on its first request (see mountLazily): a cold start
// pays only for the routing table and the two exported classes.
mountLazily(app, "/health", () => import("./order-api/health").then((m) => m.healthRoutes));
mountLazily(app, "/mcp", () => import("./mcp/route").then((m) => m.mcpRoutes));

// OAuth 2.1 for clients that cannot send a static header (claude.ai, ChatGPT).
mountLazily(app, "/.well-known", () => import("./oauth/endpoints").then((m) => m.oauthDiscovery));
mountLazily(app, "/oauth", () => import("./oauth/endpoints").then((m) => m.oauthEndpoints));
mountLazily(app, "/authorize", () => import("./oauth/consent").then((m) => m.consentPages));

mountLazily(app, "/approvals", () => import("./web/approval/browser").then((m) => m.approvalPages));
mountLazily(app, "/api/approvals", () => import("./web/approval/api").then((m) => m.approvalApi));
mountLazily(app, "/api/dead-letters", () => import("./web/admin/dead-letters-api").then((m) => m.deadLettersApi));
mountLazily(app, "/api/audit", () => import("./web/audit/export-routes").then((m) => m.auditExport));
mountLazily(app, "/runs", () => import("./web/runs/routes").then((m) => m.runPages));
mountLazily(app, "/api", () => import("./order-api/public-api").then((m) => m.publicOrderApi));

installErrorHandlers(app);

// The outbox's queue consumers and its drain (on the cron trigger) load on
// their first batch or tick, so a request's cold start pays nothing for them.
export default {
  fetch: app.fetch,
  queue: async (batch, env) => (await import("./outbox/handlers")).handleQueue(batch, env),
  scheduled: async (controller, env) => (await import("./outbox/handlers")).handleScheduled(controller, env),
} satisfies ExportedHandler<Env>;
export { AccountAgent } from "./account/account-agent";
export { RunShard } from "./account/run-shard";
export { OrderApi } from "./order-api/entrypoint";
