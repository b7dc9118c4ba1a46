/**
 * DNS-rebinding and cross-site protection for /mcp and /api, as the MCP spec
 * asks: a request that carries an Origin must come from an allowed one. CLI
 * clients send no Origin and pass. The request's own Host is never taken as
 * the allowed origin, because a rebound DNS name makes it match the
 * attacker's page.
 *
 * Kept beside the MCP SDK's originValidationResponse and
 * hostHeaderValidationResponse (@modelcontextprotocol/server 2.4.0), because
 * those would make answers and checks worse: they answer every refusal as a
 * JSON-RPC error (403, code -32000, "Invalid Origin: evil.example", "Invalid
 * Host: attacker.example"), also on /api and the HTML pages, naming neither
 * the port nor the variable that would allow it; the origin check compares
 * host names only, so http:// or another port of an allowed origin would pass
 * (test/http/origin-guard.test.ts, "matched as a whole origin"); and importing
 * the SDK here would load it for /api and page requests, which never need it.
 * Revisit when the SDK matches whole origins and lets the caller word the refusal.
 */
import type { Context, MiddlewareHandler } from "hono";
import { cors } from "hono/cors";
import type { Config } from "../config/config";
import { isLoopbackHost } from "../config/deployment-checks";
import type { AppEnv } from "./app-env";
import { errorResponse } from "./respond";

function isLocalUrl(url: URL): boolean {
  return (url.protocol === "http:" || url.protocol === "https:") && isLoopbackHost(url.hostname);
}

function isAllowedOrigin(origin: string, config: Config): boolean {
  if (config.allowedOrigins.includes(origin)) return true;
  if (config.environment !== "development") return false;
  try {
    return isLocalUrl(new URL(origin));
  } catch {
    return false;
  }
}

/**
 * A rebinding page's same-origin requests carry no Origin, only its own name
 * in Host. So only the names this Worker is reached by are served:
 * PUBLIC_BASE_URL's host, ALLOWED_HOSTS (custom domains), an allowed origin's
 * host, and this machine's names in development (config.allowedHosts).
 */
function isServedHost(host: string, config: Config): boolean {
  let hostname: string;
  try {
    hostname = new URL(`http://${host}`).hostname;
  } catch {
    return false;
  }
  if (config.allowedHosts.includes(hostname)) return true;
  return config.allowedOrigins.some((origin) => new URL(origin).hostname === hostname);
}

function hostOf(c: Context<AppEnv>): string {
  return c.req.header("host") ?? new URL(c.req.url).host;
}

function hostRefusal(host: string, servedThing: string): string {
  return `host ${host} is not one ${servedThing} answers to; add it to ALLOWED_HOSTS if it should be`;
}

/**
 * The Host rule alone, for the browser pages (approval app, run pages, OAuth
 * consent), which answer in HTML. Their form check cannot stand in for it: a
 * rebound page is same-origin with itself, so its posts carry
 * `Sec-Fetch-Site: same-origin` and pass any Fetch Metadata check.
 */
export function servedHostOnly(
  servedThing: string,
  refuse: (c: Context<AppEnv>, message: string) => Response | Promise<Response>,
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const host = hostOf(c);
    if (!isServedHost(host, c.get("config"))) return refuse(c, hostRefusal(host, servedThing));
    await next();
  };
}

/** Refuses foreign origins and foreign hosts before any credential is looked at. */
export function originPolicy(servedThing: string): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const config = c.get("config");
    const host = hostOf(c);
    if (!isServedHost(host, config))
      return errorResponse(c, { code: "forbidden", message: hostRefusal(host, servedThing) });
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
  exposeHeaders: ["mcp-session-id", "mcp-protocol-version", "www-authenticate", "x-d1-bookmark"],
  maxAge: 600,
});

/** Only requests that carry an Origin are CORS requests; the rest (CLI clients, stray OPTIONS) route as usual. */
export const mcpCors: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (c.req.header("origin") === undefined) return next();
  return mcpCorsHeaders(c, next);
};
