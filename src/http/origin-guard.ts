import type { Context, MiddlewareHandler } from "hono";
import type { Config } from "../config/config";
import type { AppEnv } from "./app-env";
import { errorResponse } from "./respond";

/**
 * DNS-rebinding and cross-site protection for /mcp, as the MCP spec asks: a
 * request that carries an Origin must come from an allowed one. CLI clients
 * send no Origin and pass. The request's own Host is deliberately not trusted,
 * because a rebound DNS name makes it match the attacker's page.
 */
const LOCAL_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

export function isAllowedOrigin(origin: string, config: Config): boolean {
  if (config.allowedOrigins.includes(origin)) return true;
  if (config.environment !== "development") return false;
  try {
    const url = new URL(origin);
    return (url.protocol === "http:" || url.protocol === "https:") && LOCAL_HOSTS.has(url.hostname);
  } catch {
    return false;
  }
}

// Stateless server: POST is the only method /mcp serves.
const ALLOWED_METHODS = "POST, OPTIONS";
const ALLOWED_HEADERS = "authorization, content-type, accept, mcp-protocol-version, mcp-session-id, last-event-id";
const EXPOSED_HEADERS = "mcp-session-id, mcp-protocol-version, www-authenticate";

function corsHeaders(origin: string): Record<string, string> {
  return {
    "Access-Control-Allow-Origin": origin,
    "Access-Control-Expose-Headers": EXPOSED_HEADERS,
    Vary: "Origin",
  };
}

function refuse(c: Context<AppEnv>, origin: string): Response {
  return errorResponse(c, {
    code: "forbidden",
    message: `origin ${origin} is not allowed to call this MCP server; add it to ALLOWED_ORIGINS if it should be`,
  });
}

export const originGuard: MiddlewareHandler<AppEnv> = async (c, next) => {
  const origin = c.req.header("origin");
  if (origin === undefined) {
    await next();
    return;
  }
  if (!isAllowedOrigin(origin, c.get("config"))) return refuse(c, origin);
  if (c.req.method === "OPTIONS") {
    return new Response(null, {
      status: 204,
      headers: {
        ...corsHeaders(origin),
        "Access-Control-Allow-Methods": ALLOWED_METHODS,
        "Access-Control-Allow-Headers": c.req.header("access-control-request-headers") ?? ALLOWED_HEADERS,
        "Access-Control-Max-Age": "600",
      },
    });
  }
  await next();
  for (const [name, value] of Object.entries(corsHeaders(origin))) c.res.headers.set(name, value);
};
