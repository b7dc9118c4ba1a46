import { Hono } from "hono";
import { bearerToken, lookupToken } from "../auth/tokens";
import { statusOf } from "../errors";
import type { AppEnv } from "../http/app-env";
import { requireConfig } from "../http/config-middleware";
import { originGuard } from "../http/origin-guard";
import { errorResponse, methodNotAllowed } from "../http/respond";
import { jsonRpcErrorResponse, readMcpCall } from "./server";

const WWW_AUTHENTICATE = 'Bearer realm="order-ops-edge"';

/**
 * /mcp: authenticate the bearer token, resolve it to {account, operator} on the
 * server side, and hand the request to that account's AccountAgent.
 */
export const mcpRoutes = new Hono<AppEnv>();

mcpRoutes.use("*", requireConfig);
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
  // The body is read and size-checked here, before anything crosses to the Durable Object.
  const call = await readMcpCall(c.req.raw);
  if (!call.ok) return jsonRpcErrorResponse(statusOf(call.error), call.error.message);
  // One RPC straight to the account's object; it starts its own lifecycle.
  return c.env.ACCOUNT_AGENT.getByName(operator.account).handleMcp(call.value, operator);
});

// Stateless server: there is no standalone SSE stream to GET and no session to DELETE.
mcpRoutes.all("/", methodNotAllowed(["POST"]));
