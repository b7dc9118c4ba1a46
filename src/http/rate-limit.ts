/**
 * Abuse limits, counted by the Workers rate-limiting bindings declared in
 * wrangler.toml ([[ratelimits]]: how many requests per period). Each surface
 * has its own binding, so a flood on one leaves the others alone. Behind a
 * credential the key is its holder, never the secret itself; before any
 * credential (OAuth registration and sign-in) it is the client's address.
 */
import type { Context, MiddlewareHandler } from "hono";
import type { Config } from "../config/config";
import { type AppError, fail, ok, type Result } from "../core/errors";
import type { AppEnv } from "./app-env";
import { errorHeaders, errorResponse, RETRY_AFTER_SECONDS } from "./respond";

const LIMITERS = {
  mcp: { binding: "MCP_RATE_LIMITER", per: "credential" },
  api: { binding: "API_RATE_LIMITER", per: "credential" },
  approvals: { binding: "APPROVAL_RATE_LIMITER", per: "credential" },
  oauth: { binding: "OAUTH_RATE_LIMITER", per: "address" },
} as const satisfies Record<string, { binding: keyof Env; per: "credential" | "address" }>;

export type RateLimitedSurface = keyof typeof LIMITERS;

const TOO_MANY = {
  credential: `too many requests with this credential; wait ${RETRY_AFTER_SECONDS} seconds and try again (the limits are per credential, set in wrangler.toml [[ratelimits]])`,
  address: `too many requests from this address; wait ${RETRY_AFTER_SECONDS} seconds and try again (OAuth registration and sign-in are limited per client IP, set in wrangler.toml [[ratelimits]])`,
} as const;

/**
 * ok, or rate_limited (429, with Retry-After) once this key has used its
 * share of the current window. `calls` counts one request that carries
 * several (a JSON-RPC batch); counting stops at the first one over the share.
 */
export async function withinRateLimit(
  env: Env,
  config: Config,
  surface: RateLimitedSurface,
  key: string,
  calls = 1,
): Promise<Result<void>> {
  if (!config.rateLimits) return ok(undefined);
  const limiter = LIMITERS[surface];
  for (let call = 0; call < calls; call++) {
    const { success } = await env[limiter.binding].limit({ key });
    if (!success) return fail("rate_limited", TOO_MANY[limiter.per]);
  }
  return ok(undefined);
}

/**
 * Who is asking, before any credential. A deployed Worker is reached only
 * through Cloudflare's edge, which sets CF-Connecting-IP to the address it saw
 * and overwrites a client's own, so there the header names the client. In
 * development nothing vouches for it: wrangler dev fills it from the socket
 * only when the client sent none, and passes a client's own on unchanged. So
 * it is not read there, and every caller is this machine, sharing one count,
 * as are requests that never passed the edge (tests calling in-process).
 */
function clientAddress(request: Request, config: Config): string {
  if (config.environment !== "production") return "this-machine";
  return request.headers.get("cf-connecting-ip")?.trim() || "this-machine";
}

/**
 * Counts requests per client address for one purpose (each has its own count
 * in the oauth binding). `refuse` draws the 429 for pages a person sees;
 * Retry-After is set either way. Needs requireConfig before it.
 */
export function limitPerAddress(
  purpose: string,
  refuse: (c: Context<AppEnv>, error: AppError) => Response | Promise<Response> = errorResponse,
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const allowed = await withinRateLimit(
      c.env,
      c.get("config"),
      "oauth",
      `${purpose}:${clientAddress(c.req.raw, c.get("config"))}`,
    );
    if (!allowed.ok) {
      for (const [name, value] of Object.entries(errorHeaders(allowed.error))) c.header(name, value);
      return refuse(c, allowed.error);
    }
    await next();
  };
}
