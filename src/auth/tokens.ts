/**
 * Bearer token lookup. Tokens are compared as SHA-256 digests with a
 * constant-time comparison, and every configured token is checked, so timing
 * reveals neither a prefix match nor which entry matched.
 */
const digestCache = new WeakMap<ReadonlyMap<string, unknown>, Promise<ArrayBuffer[]>>();

function sha256(text: string): Promise<ArrayBuffer> {
  return crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
}

function digestsOf(tokens: ReadonlyMap<string, unknown>): Promise<ArrayBuffer[]> {
  let digests = digestCache.get(tokens);
  if (!digests) {
    digests = Promise.all([...tokens.keys()].map(sha256));
    digestCache.set(tokens, digests);
  }
  return digests;
}

/**
 * Tokens already seen to match, per token map, so a valid token is hashed once
 * per isolate instead of on every request. Only matches are kept (at most one
 * entry per configured token), so a guess always takes the full hashed,
 * constant-time path, and the map holds nothing the configuration does not.
 */
const matched = new WeakMap<ReadonlyMap<string, unknown>, Map<string, unknown>>();

export async function lookupToken<T>(tokens: ReadonlyMap<string, T>, presented: string): Promise<T | undefined> {
  const seen = matched.get(tokens)?.get(presented) as T | undefined;
  if (seen !== undefined) return seen;
  const holder = await lookupTokenDigest(tokens, await sha256(presented));
  if (holder !== undefined) {
    let known = matched.get(tokens);
    if (!known) {
      known = new Map();
      matched.set(tokens, known);
    }
    known.set(presented, holder);
  }
  return holder;
}

/** The SHA-256 of a token: what a record may keep to name a token without holding it. */
export const tokenDigest = sha256;

/** The holder of the token whose SHA-256 is `presentedDigest`, with the same constant-time scan. */
export async function lookupTokenDigest<T>(
  tokens: ReadonlyMap<string, T>,
  presentedDigest: ArrayBuffer,
): Promise<T | undefined> {
  const digests = await digestsOf(tokens);
  if (presentedDigest.byteLength !== 32) return undefined;
  const holders = [...tokens.values()];
  let match: T | undefined;
  digests.forEach((digest, index) => {
    if (crypto.subtle.timingSafeEqual(digest, presentedDigest)) match = holders[index];
  });
  return match;
}

/** The token from `Authorization: Bearer <token>`, or undefined when absent or malformed. */
export function bearerToken(authorization: string | undefined | null): string | undefined {
  if (!authorization) return undefined;
  const match = /^Bearer[ ]+([^\s]+)\s*$/i.exec(authorization);
  return match?.[1];
}
