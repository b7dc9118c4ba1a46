import type { Context, MiddlewareHandler } from "hono";
import { cors } from "hono/cors";
import type { Config } from "../config/config";
import { isLoopbackHost } from "../config/deployment-checks";
import type { AppEnv } from "./app-env";
import { errorResponse } from "./respond";

/**
 * DNS-rebinding and cross-site protection for /mcp and /api, as the MCP spec
 * asks: a request that carries an Origin must come from an allowed one. CLI
 * clients send no Origin and pass. The request's own Host is never taken as
 * the allowed origin, because a rebound DNS name makes it match the
 * attacker's page.
 */
function isLocalUrl(url: URL): boolean {
  return (url.protocol === "http:" || url.protocol === "https:") && isLoopbackHost(url.hostname);
}

export function isAllowedOrigin(origin: string, config: Config): boolean {
  if (config.allowedOrigins.includes(origin)) return true;
  if (config.environment !== "development") return false;
  try {
    return isLocalUrl(new URL(origin));
  } catch {
    return false;
  }
}

/**
 * A rebinding page's same-origin GET carries no Origin, only its own name in
 * Host. A development server listens on this machine, so in development a
 * request must name this machine (or PUBLIC_BASE_URL's or an allowed origin's
 * host). A deployed Worker is only routed requests for its own hostnames.
 */
function isServedHost(url: URL, config: Config): boolean {
  if (config.environment !== "development" || isLocalUrl(url)) return true;
  const known = [config.publicBaseUrl, ...config.allowedOrigins].map((origin) => new URL(origin).hostname);
  return known.includes(url.hostname);
}

/** Refuses foreign origins (and, in development, foreign hosts) before any credential is looked at. */
export function originPolicy(servedThing: string): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const config = c.get("config");
    const url = new URL(c.req.url);
    if (!isServedHost(url, config)) {
      return errorResponse(c, {
        code: "forbidden",
        message: `host ${url.host} is not this development server; use localhost or PUBLIC_BASE_URL (${config.publicBaseUrl})`,
      });
    }
    const origin = c.req.header("origin");
    if (origin !== undefined && !isAllowedOrigin(origin, config)) {
      return errorResponse(c, {
        code: "forbidden",
        message: `origin ${origin} is not allowed to call ${servedThing}; add it to ALLOWED_ORIGINS if it should be`,
      });
    }
    await next();
  };
}

/**
 * CORS for /mcp, after originPolicy has refused everything else: an allowed
 * Origin is echoed, with the headers an MCP client needs to read (the
 * challenge included, so a browser client can start OAuth or show the error).
 */
const mcpCorsHeaders: MiddlewareHandler<AppEnv> = cors({
  origin: (origin: string, c: Context<AppEnv>) => (isAllowedOrigin(origin, c.get("config")) ? origin : null),
  // Stateless server: POST is the only method /mcp serves.
  allowMethods: ["POST", "OPTIONS"],
  exposeHeaders: ["mcp-session-id", "mcp-protocol-version", "www-authenticate"],
  maxAge: 600,
});

/** Only requests that carry an Origin are CORS requests; the rest (CLI clients, stray OPTIONS) route as usual. */
export const mcpCors: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (c.req.header("origin") === undefined) return next();
  return mcpCorsHeaders(c, next);
};
