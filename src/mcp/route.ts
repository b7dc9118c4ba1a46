import { Hono } from "hono";
import { bearerToken, lookupToken } from "../auth/tokens";
import { statusOf } from "../core/errors";
import type { AppEnv } from "../http/app-env";
import { requireConfig } from "../http/config-middleware";
import { originGuard } from "../http/origin-guard";
import { errorResponse, methodNotAllowed } from "../http/respond";
import { readLimitedText } from "../http/json-body";
import { accountToolContext } from "./account-context";
import { jsonRpcErrorResponse, MAX_MCP_BODY_BYTES, serveMcpRequest } from "./server";

const WWW_AUTHENTICATE = 'Bearer realm="order-ops-edge"';

/**
 * /mcp: authenticate the bearer token, resolve it to {account, operator} on the
 * server side, and serve MCP for that account.
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
  // Size-checked before anything is parsed: no tool takes more than a few hundred bytes.
  const body = await readLimitedText(c.req.raw, MAX_MCP_BODY_BYTES);
  if (!body.ok) return jsonRpcErrorResponse(statusOf(body.error), body.error.message);
  return serveMcpRequest(c.req.raw, body.value, accountToolContext(c.env, config, operator));
});

// Stateless server: there is no standalone SSE stream to GET and no session to DELETE.
mcpRoutes.all("/", methodNotAllowed(["POST"]));
