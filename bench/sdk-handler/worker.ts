// The Worker `npm run bench` starts: the product's own entry, plus two MCP
// routes that serve the same credential, account and tools the way the
// SDK's own `createMcpHandler` does (a fresh server per request, 2025
// requests through its stateless fallback), without anything of
// src/mcp/transport/ but the server factory. Measured beside /mcp in the same
// run and isolate, they are what each transport piece must beat to stay
// (src/mcp/transport/README.md):
//   /bench/sdk/mcp         a server holding everything, as the SDK's examples build it
//   /bench/sdk-needs/mcp   a server holding what the request needs (request-needs.ts)
// wrangler.toml's `main` never imports this folder, so it is never deployed.
import { createMcpHandler } from "@modelcontextprotocol/server";
import { authenticateOperator } from "../../src/auth/operator";
import { loadConfig } from "../../src/config/config";
import project from "../../src/index";
import { accountToolContext } from "../../src/mcp/account-context";
import { createMcpServer } from "../../src/mcp/server";
import { EVERYTHING, needsOf } from "../../src/mcp/transport/request-needs";
import { accountReads } from "../../src/store/read-session";

export * from "../../src/index";

const VARIANTS: Readonly<Record<string, boolean>> = { "/bench/sdk/mcp": false, "/bench/sdk-needs/mcp": true };

async function servedBySdk(request: Request, env: Env, withNeeds: boolean): Promise<Response> {
  const config = loadConfig(env);
  if (!config.ok) return new Response(config.error.message, { status: 500 });
  const caller = await authenticateOperator(config.value, request.headers.get("authorization") ?? undefined);
  if (!caller.ok) return new Response(caller.error.message, { status: 401 });
  const message: unknown = await request.clone().json();
  const reads = accountReads(env, caller.value.account);
  const context = accountToolContext(env, config.value, caller.value, reads);
  const needs = withNeeds ? needsOf(message) : EVERYTHING;
  const handler = createMcpHandler(() => createMcpServer(context, undefined, needs), { legacy: "stateless" });
  return handler.fetch(request, { parsedBody: message });
}

export default {
  ...project,
  fetch(request, env, ctx) {
    const withNeeds = request.method === "POST" ? VARIANTS[new URL(request.url).pathname] : undefined;
    return withNeeds === undefined ? project.fetch(request, env, ctx) : servedBySdk(request, env, withNeeds);
  },
} satisfies ExportedHandler<Env>;
