import { Hono, type MiddlewareHandler } from "hono";
import { bearerToken, lookupToken } from "../auth/tokens";
import { statusOf } from "../core/errors";
import type { AppEnv } from "../http/app-env";
import { requireConfig } from "../http/config-middleware";
import { originGuard } from "../http/origin-guard";
import { errorResponse, methodNotAllowed } from "../http/respond";
import { readLimitedText } from "../http/json-body";
import { accountToolContext } from "./account-context";
import { INVALID_REQUEST, jsonRpcErrorResponse } from "./jsonrpc";
import { MAX_MCP_BODY_BYTES, serveMcpRequest } from "./server";

const WWW_AUTHENTICATE = 'Bearer realm="order-ops-edge"';

/**
 * /mcp: authenticate the bearer token, resolve it to {account, operator} on the
 * server side, and serve MCP for that account.
 */
export const mcpRoutes = new Hono<AppEnv>();

/** The hostname a Host header names, as URL parsing sees it (port dropped, IPv6 kept in brackets). */
function hostnameOf(host: string): string | undefined {
  try {
    return new URL(`http://${host}`).hostname;
  } catch {
    return undefined;
  }
}

/**
 * DNS-rebinding protection, as the MCP transport spec asks: a page on
 * evil.example can make a browser send requests to our address under its own
 * name, so only the names this Worker is reached by are served (ALLOWED_HOSTS,
 * PUBLIC_BASE_URL's host, and localhost in development).
 */
const hostGuard: MiddlewareHandler<AppEnv> = async (c, next) => {
  const host = c.req.header("host") ?? new URL(c.req.url).host;
  const hostname = hostnameOf(host);
  if (hostname === undefined || !c.get("config").allowedHosts.includes(hostname)) {
    return errorResponse(c, {
      code: "forbidden",
      message: `host ${host} is not one this MCP server answers to; add it to ALLOWED_HOSTS if it should be`,
    });
  }
  await next();
};

mcpRoutes.use("*", requireConfig);
mcpRoutes.use("*", hostGuard);
mcpRoutes.use("*", originGuard);

mcpRoutes.post("/", async (c) => {
  const config = c.get("config");
  if (config.mcpTokens.size === 0) {
    return errorResponse(c, {
      code: "not_configured",
      message: 'no MCP tokens are configured, so /mcp refuses every call; set MCP_TOKENS with `wrangler secret put MCP_TOKENS` (value {"<token>":{"account":"acme","operator":"Ada"}})',
    });
  }
  const token = bearerToken(c.req.header("authorization"));
  if (token === undefined) {
    return errorResponse(
      c,
      { code: "unauthorized", message: "send Authorization: Bearer <token> with your MCP token" },
      { "WWW-Authenticate": WWW_AUTHENTICATE },
    );
  }
  const operator = await lookupToken(config.mcpTokens, token);
  if (!operator) {
    const isApprover = (await lookupToken(config.approverTokens, token)) !== undefined;
    return errorResponse(
      c,
      {
        code: "unauthorized",
        message: isApprover
          ? "approver tokens cannot be used for MCP; approvals happen only in the approval app"
          : "the bearer token is not a valid MCP token",
      },
      { "WWW-Authenticate": `${WWW_AUTHENTICATE}, error="invalid_token"` },
    );
  }
  // Size-checked before anything is parsed: no tool takes more than a few hundred bytes.
  const body = await readLimitedText(c.req.raw, MAX_MCP_BODY_BYTES);
  if (!body.ok) return jsonRpcErrorResponse(statusOf(body.error), INVALID_REQUEST, body.error.message);
  return serveMcpRequest(c.req.raw, body.value, accountToolContext(c.env, config, operator));
});

// Stateless server: there is no standalone SSE stream to GET and no session to DELETE.
mcpRoutes.all("/", methodNotAllowed(["POST"]));
