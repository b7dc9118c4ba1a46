import { Hono } from "hono";
import { authenticateOperator, type OAuthCaller } from "../auth/operator";
import { insufficientRole, insufficientScope } from "../auth/scope-check";
import type { AppEnv } from "../http/app-env";
import { requireConfig } from "../http/config-middleware";
import { bookmarkFromRequest, withNextBookmark } from "../http/d1-bookmark";
import { readLimitedText } from "../http/json-body";
import { mcpCors, originPolicy } from "../http/origin-guard";
import { withinRateLimit } from "../http/rate-limit";
import { methodNotAllowed, refusalResponse } from "../http/respond";
import type { AccountToolContext } from "./account-context";
import { INVALID_REQUEST, jsonRpcRefusal, PARSE_ERROR, SERVER_ERROR } from "./transport/jsonrpc-errors";

/** No tool takes more than a few hundred bytes of arguments; 1 MiB leaves room and stops abuse. */
export const MAX_MCP_BODY_BYTES = 1024 * 1024;

/**
 * The MCP server (the SDK and every tool schema) and the checks before it load
 * on the first /mcp request, not at startup: /health, /api and the approval
 * pages never pay for building the protocol's schemas.
 */
let checks:
  | Promise<
      [
        typeof import("./account-context"),
        typeof import("./scope-gate"),
        typeof import("./transport/jsonrpc"),
        typeof import("../store/read-session"),
      ]
    >
  | undefined;
const loadChecks = () =>
  (checks ??= Promise.all([
    import("./account-context"),
    import("./scope-gate"),
    import("./transport/jsonrpc"),
    import("../store/read-session"),
  ]));

/** Answers one checked MCP request for one account: the body read and parsed, the caller's scopes allowing it. */
export type McpServe = (
  incoming: Request,
  body: string,
  message: unknown,
  context: AccountToolContext,
) => Promise<Response>;

/** The product's serving: src/mcp/transport/, which builds its servers with server.ts, loaded on the first request. */
const loadTransport = async (): Promise<McpServe> => (await import("./transport/serve-request")).serveMcpRequest;

/**
 * /mcp: authenticate the bearer token (static or OAuth), resolve it to
 * {account, operator, scopes} on the server side, and serve MCP for that
 * account within those scopes. `loadServe` is the serving behind those
 * checks; `npm run bench` mounts the same checks over the SDK's own handler
 * to measure the transport against it (bench/sdk-handler/worker.ts).
 */
export function mcpRoutesServedBy(loadServe: () => Promise<McpServe>): Hono<AppEnv> {
  let served: Promise<McpServe> | undefined;
  const serving = () => {
    served ??= loadServe();
    return served;
  };
  const routes = new Hono<AppEnv>();
  routes.use("*", requireConfig);
  routes.use("*", originPolicy("this MCP server"), mcpCors);
  routes.post("/", async (c) => {
    const config = c.get("config");
    const { oauth } = config;
    // The OAuth server loads only for a token that is not a static one: most calls never need it.
    const viaOAuth: OAuthCaller | undefined = oauth
      ? async (token) => (await import("../oauth/access-tokens")).oauthCaller(config, oauth, c.env)(token)
      : undefined;
    const operator = await authenticateOperator(config, c.req.header("authorization"), viaOAuth);
    if (!operator.ok) return refusalResponse(c, operator);
    const limitKey = `${operator.value.account}:${operator.value.operator}`;
    const allowed = await withinRateLimit(c.env, config, "mcp", limitKey);
    if (!allowed.ok) return jsonRpcRefusal(allowed.error, SERVER_ERROR);
    // Size-checked before anything is parsed: no tool takes more than a few hundred bytes.
    const body = await readLimitedText(c, MAX_MCP_BODY_BYTES);
    if (!body.ok) return jsonRpcRefusal(body.error, INVALID_REQUEST);
    const [[{ accountToolContext }, { outOfScopeCall }, { parseBody }, { accountReads }], serveRequest] =
      await Promise.all([loadChecks(), serving()]);
    const message = parseBody(body.value);
    if (!message.ok) return jsonRpcRefusal(message.error, PARSE_ERROR);
    // A batch (2025-03-26) is as many calls as it holds: the request was one of them.
    if (Array.isArray(message.value) && message.value.length > 1) {
      const batch = await withinRateLimit(c.env, config, "mcp", limitKey, message.value.length - 1);
      if (!batch.ok) return jsonRpcRefusal(batch.error, SERVER_ERROR);
    }
    const outOfScope = outOfScopeCall(message.value, operator.value.scopes);
    if (outOfScope) {
      const { role, scopes } = operator.value;
      return refusalResponse(
        c,
        insufficientRole(role, outOfScope.needed, outOfScope.what) ??
          insufficientScope(config, scopes, outOfScope.needed, outOfScope.what),
      );
    }
    // The caller's D1 bookmark, if it carries one, and the next one handed back (http/d1-bookmark.ts).
    const reads = accountReads(c.env, operator.value.account, bookmarkFromRequest(c.req.raw.headers));
    const context = accountToolContext(c.env, config, operator.value, reads);
    return withNextBookmark(await serveRequest(c.req.raw, body.value, message.value, context), reads.nextBookmark());
  });

  // Stateless server: there is no standalone SSE stream to GET and no session to DELETE.
  routes.all("/", methodNotAllowed(["POST"]));
  return routes;
}

export const mcpRoutes = mcpRoutesServedBy(loadTransport);
