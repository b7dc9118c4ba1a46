import type { OAuthHelpers } from "@cloudflare/workers-oauth-provider";
import { withFailedChecks } from "../auth/oauth-server";
import { sha256Hex } from "../core/encoding";

/**
 * Two rules the OAuth library (@cloudflare/workers-oauth-provider) does not
 * keep, kept here around its token endpoint rather than by patching it:
 *
 * - A refresh token works once. The library rotates them, but accepts the
 *   one before the current one again and again (a grace for a client that lost
 *   an answer), and each such use quietly invalidates the real client's
 *   token. OAuth 2.1 and RFC 9700 say to revoke the grant when a rotated
 *   token comes back: it has leaked, and nobody can tell the thief from the
 *   client. So every refresh token the library accepts is recorded as spent,
 *   and a spent one presented again revokes its grant before the library
 *   sees it; the library then answers it as the unknown grant it now is.
 *   The price: a client that lost the answer to a refresh and retries it
 *   must connect again.
 * - An authorization code takes PKCE_TRIES_PER_CODE wrong verifiers; the
 *   library would take any number. The last wrong one revokes the grant,
 *   which ends the code.
 *
 * Both records live in OAUTH_KV beside the library's, under keys of their
 * own, named by a digest of the token or code, never the secret itself.
 * Only a real token or code can be spent or counted: a made-up one that
 * names a grant (its id is in every access token) changes nothing.
 */
export const PKCE_TRIES_PER_CODE = 3;

/** How long an authorization code lives in the library; a count of misses need not outlive it. */
const CODE_LIFETIME_SECONDS = 600;

const spentKey = async (refreshToken: string) => `order-ops:spent-refresh-token:${await sha256Hex(refreshToken)}`;
const missesKey = async (code: string) => `order-ops:pkce-misses:${await sha256Hex(code)}`;

/** The library's tokens and codes are `userId:grantId:secret`. */
function grantOf(tokenOrCode: string): { userId: string; grantId: string } | undefined {
  const [userId, grantId, secret, ...rest] = tokenOrCode.split(":");
  return userId && grantId && secret && rest.length === 0 ? { userId, grantId } : undefined;
}

export interface TokenGuardDeps {
  readonly kv: KVNamespace;
  readonly oauth: OAuthHelpers;
  /** How long a grant lasts, so a spent token's record outlives every token of it. */
  readonly refreshTokenTtlSeconds: number;
  /** The library's own answer to the request. */
  readonly answer: (request: Request) => Promise<Response>;
}

async function tokenForm(request: Request): Promise<URLSearchParams | undefined> {
  if (request.method !== "POST" || !(request.headers.get("content-type") ?? "").startsWith("application/x-www-form-urlencoded")) return undefined;
  try {
    return new URLSearchParams(await request.clone().text());
  } catch {
    return undefined;
  }
}

async function revoke(deps: TokenGuardDeps, tokenOrCode: string, why: string): Promise<void> {
  const grant = grantOf(tokenOrCode);
  if (!grant) return;
  await deps.oauth.revokeGrant(grant.grantId, grant.userId);
  console.warn(`OAuth grant ${grant.grantId} revoked: ${why}`);
}

async function refreshOnce(deps: TokenGuardDeps, request: Request, refreshToken: string): Promise<Response> {
  const key = await spentKey(refreshToken);
  if ((await deps.kv.get(key)) !== null) await revoke(deps, refreshToken, "a refresh token that was already used came back");
  const response = await deps.answer(request);
  if (response.ok) await deps.kv.put(key, "spent", { expirationTtl: Math.max(60, deps.refreshTokenTtlSeconds) });
  return response;
}

async function limitedVerifierTries(deps: TokenGuardDeps, request: Request, code: string): Promise<Response> {
  const { response, failed } = await withFailedChecks(() => deps.answer(request));
  if (!failed.includes("code_verifier_mismatch")) return response;
  const key = await missesKey(code);
  const misses = Number((await deps.kv.get(key)) ?? "0") + 1;
  if (misses >= PKCE_TRIES_PER_CODE) {
    await revoke(deps, code, `${misses} wrong PKCE verifiers for one authorization code`);
    await deps.kv.delete(key);
  } else {
    await deps.kv.put(key, String(misses), { expirationTtl: CODE_LIFETIME_SECONDS });
  }
  return response;
}

/** The token endpoint, with both rules; everything else (RFC 7009 revocation, other grants) goes straight to the library. */
export async function guardedTokenEndpoint(deps: TokenGuardDeps, request: Request): Promise<Response> {
  const form = await tokenForm(request);
  const grantType = form?.get("grant_type");
  const refreshToken = form?.get("refresh_token");
  if (grantType === "refresh_token" && refreshToken) return refreshOnce(deps, request, refreshToken);
  const code = form?.get("code");
  if (grantType === "authorization_code" && code) return limitedVerifierTries(deps, request, code);
  return deps.answer(request);
}
