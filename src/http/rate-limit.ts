import type { Config } from "../config/config";
import { fail, ok, type Result } from "../core/errors";
import { RETRY_AFTER_SECONDS } from "./respond";

/**
 * Per-credential abuse limits, counted by the Workers rate-limiting bindings
 * declared in wrangler.toml ([[ratelimits]]: how many requests per period).
 * Each surface has its own binding, so a flood on one leaves the others alone,
 * and the key is the credential's holder, never the secret itself.
 */
const LIMITERS = {
  mcp: "MCP_RATE_LIMITER",
  api: "API_RATE_LIMITER",
  approvals: "APPROVAL_RATE_LIMITER",
} as const satisfies Record<string, keyof Env>;

export type RateLimitedSurface = keyof typeof LIMITERS;

/** ok, or rate_limited (429, with Retry-After) once this credential has used its share of the current window. */
export async function withinRateLimit(env: Env, config: Config, surface: RateLimitedSurface, credential: string): Promise<Result<void>> {
  if (!config.rateLimits) return ok(undefined);
  const { success } = await env[LIMITERS[surface]].limit({ key: credential });
  if (success) return ok(undefined);
  return fail(
    "rate_limited",
    `too many requests with this credential; wait ${RETRY_AFTER_SECONDS} seconds and try again (the limits are per credential, set in wrangler.toml [[ratelimits]])`,
  );
}
