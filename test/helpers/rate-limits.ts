// Rate limits in tests: a stand-in for a [[ratelimits]] binding, and what a
// 429 asks the caller to wait.

/** Every 429 asks for this many seconds (Retry-After), the limits' period. */
export const RETRY_AFTER = "60";

/** A stand-in for a [[ratelimits]] binding: counts keys, allows the first `allow` calls per key. */
export function fakeLimiter(allow: number) {
  const seen = new Map<string, number>();
  const limiter: RateLimit = {
    limit: ({ key }) => {
      const count = (seen.get(key) ?? 0) + 1;
      seen.set(key, count);
      return Promise.resolve({ success: count <= allow });
    },
  };
  return { limiter, seen };
}
