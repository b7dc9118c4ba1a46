import { Hono } from "hono";
import { authenticateOperator } from "../auth/operator";
import { insufficientScope } from "../auth/scopes";
import { statusOf } from "../core/errors";
import type { AppEnv } from "../http/app-env";
import { requireConfig } from "../http/config-middleware";
import { mcpCors, originPolicy } from "../http/origin-guard";
import { methodNotAllowed, refusalResponse, RETRY_AFTER_SECONDS } from "../http/respond";
import { readLimitedText } from "../http/json-body";
import { withinRateLimit } from "../http/rate-limit";
import { INVALID_REQUEST, jsonRpcErrorResponse, SERVER_ERROR } from "./jsonrpc-errors";

/** No tool takes more than a few hundred bytes of arguments; 1 MiB leaves room and stops abuse. */
export const MAX_MCP_BODY_BYTES = 1024 * 1024;

/**
 * The MCP server (the SDK and every tool schema) loads on the first /mcp
 * request, not at startup: /health, /api and the approval pages never pay
 * for building the protocol's schemas.
 */
let server: Promise<[typeof import("./server"), typeof import("./account-context"), typeof import("./scope-gate"), typeof import("./jsonrpc")]> | undefined;
const loadServer = () => (server ??= Promise.all([import("./server"), import("./account-context"), import("./scope-gate"), import("./jsonrpc")]));

/**
 * /mcp: authenticate the bearer token (static or OAuth), resolve it to
 * {account, operator, scopes} on the server side, and serve MCP for that
 * account within those scopes.
 */
export const mcpRoutes = new Hono<AppEnv>();

mcpRoutes.use("*", requireConfig);
mcpRoutes.use("*", originPolicy("this MCP server"), mcpCors);

mcpRoutes.post("/", async (c) => {
  const config = c.get("config");
  const operator = await authenticateOperator(config, c.env, c.req.header("authorization"));
  if (!operator.ok) return refusalResponse(c, operator);
  const allowed = await withinRateLimit(c.env, config, "mcp", `${operator.value.account}:${operator.value.operator}`);
  if (!allowed.ok) {
    const response = jsonRpcErrorResponse(statusOf(allowed.error), SERVER_ERROR, allowed.error.message);
    response.headers.set("Retry-After", String(RETRY_AFTER_SECONDS));
    return response;
  }
  // Size-checked before anything is parsed: no tool takes more than a few hundred bytes.
  const body = await readLimitedText(c.req.raw, MAX_MCP_BODY_BYTES);
  if (!body.ok) return jsonRpcErrorResponse(statusOf(body.error), INVALID_REQUEST, body.error.message);
  const [{ serveMcpRequest }, { accountToolContext }, { outOfScopeCall }, { parseBody }] = await loadServer();
  const message = parseBody(body.value);
  if (!message.ok) return message.response;
  const outOfScope = outOfScopeCall(message.value, operator.value.scopes);
  if (outOfScope) return refusalResponse(c, insufficientScope(config, operator.value.scopes, outOfScope.needed, outOfScope.what));
  return serveMcpRequest(c.req.raw, body.value, message.value, accountToolContext(c.env, config, operator.value));
});

// Stateless server: there is no standalone SSE stream to GET and no session to DELETE.
mcpRoutes.all("/", methodNotAllowed(["POST"]));
