import type { MiddlewareHandler } from "hono";
import type { Config } from "../config/config";
import type { AppEnv } from "./app-env";
import { type RateLimitedSurface, withinRateLimit } from "./rate-limit";
import { type Authenticated, errorResponse, refusalResponse } from "./respond";

/** AppEnv plus the credential holder that requireCredential resolved for the route. */
export interface WithHolder<T> {
  Bindings: Env;
  Variables: AppEnv["Variables"] & { holder: T };
}

export interface CredentialCheck<T> {
  readonly authenticate: (config: Config, request: Request) => Promise<Authenticated<T>>;
  /** The per-credential limit of this surface, keyed by the holder (never by the secret). */
  readonly rateLimit?: { readonly surface: RateLimitedSurface; readonly key: (holder: T) => string } | undefined;
}

/**
 * Authenticates, then counts the request against the holder's limit, then
 * hands the holder to the route as `c.get("holder")`. A refusal answers with
 * the credential's own challenge, and nothing after this middleware runs.
 */
export function requireCredential<T>(check: CredentialCheck<T>): MiddlewareHandler<WithHolder<T>> {
  return async (c, next) => {
    const config = c.get("config");
    const holder = await check.authenticate(config, c.req.raw);
    if (!holder.ok) return refusalResponse(c, holder);
    if (check.rateLimit) {
      const allowed = await withinRateLimit(c.env, config, check.rateLimit.surface, check.rateLimit.key(holder.value));
      if (!allowed.ok) return errorResponse(c, allowed.error);
    }
    c.set("holder", holder.value);
    await next();
  };
}
