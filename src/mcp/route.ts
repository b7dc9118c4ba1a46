import { Hono } from "hono";
import { bearerToken, lookupToken } from "../auth/tokens";
import type { AppEnv } from "../http/app-env";
import { requireConfig } from "../http/config-middleware";
import { originGuard } from "../http/origin-guard";
import { errorResponse, methodNotAllowed } from "../http/respond";
import { MAX_MCP_BODY_BYTES } from "./server";

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
  // Refuse a declared oversize body here, before it crosses to the Durable
  // Object; the object still counts the bytes of bodies sent without a length.
  if (Number(c.req.header("content-length") ?? "0") > MAX_MCP_BODY_BYTES) {
    return c.json({ jsonrpc: "2.0", id: null, error: { code: -32600, message: `request body is larger than ${MAX_MCP_BODY_BYTES} bytes` } }, 413);
  }
  // One RPC straight to the account's object; it starts its own lifecycle.
  return c.env.ACCOUNT_AGENT.getByName(operator.account).handleMcp(c.req.raw, operator);
});

// Stateless server: there is no standalone SSE stream to GET and no session to DELETE.
mcpRoutes.all("/", methodNotAllowed(["POST"]));
