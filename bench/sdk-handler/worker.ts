// The Worker `npm run bench` starts: the product's own entry, plus the /mcp
// route's checks (token, rate limit, body, scopes, read session) mounted over
// the SDK's own `createMcpHandler` (a fresh server per request, 2025 requests
// through its stateless fallback) instead of src/mcp/transport/. Measured
// beside /mcp in the same run and isolate, they are what each transport piece
// must beat to stay (src/mcp/transport/README.md):
//   /bench/sdk/mcp         a server holding everything, as the SDK's examples build it
//   /bench/sdk-needs/mcp   a server holding what the request needs (request-needs.ts)
// wrangler.toml's `main` never imports this folder, so it is never deployed.
import { createMcpHandler } from "@modelcontextprotocol/server";
import { Hono } from "hono";
import type { AppEnv } from "../../src/http/app-env";
import project from "../../src/index";
import { EVERYTHING, needsOf } from "../../src/mcp/request-needs";
import { type McpServe, mcpRoutesServedBy } from "../../src/mcp/route";
import { createMcpServer } from "../../src/mcp/server";
import { serveMcpRequest } from "../../src/mcp/transport/serve-request";

export * from "../../src/index";

const servedBySdk =
  (withNeeds: boolean): McpServe =>
  (incoming, _body, message, context) => {
    const needs = withNeeds ? needsOf(message) : EVERYTHING;
    const handler = createMcpHandler(() => createMcpServer(context, needs), { legacy: "stateless" });
    return handler.fetch(incoming, { parsedBody: message });
  };

const bench = new Hono<AppEnv>()
  .route(
    "/bench/sdk/mcp",
    mcpRoutesServedBy(async () => servedBySdk(false)),
  )
  .route(
    "/bench/sdk-needs/mcp",
    mcpRoutesServedBy(async () => servedBySdk(true)),
  )
  .route(
    "/bench/no-list-cache/mcp",
    mcpRoutesServedBy(
      async () => (incoming, body, message, context) =>
        serveMcpRequest(incoming, body, message, context, { keepListing: false }),
    ),
  );

export default {
  ...project,
  fetch(request, env, ctx) {
    return new URL(request.url).pathname.startsWith("/bench/")
      ? bench.fetch(request, env, ctx)
      : project.fetch(request, env, ctx);
  },
} satisfies ExportedHandler<Env>;
