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
 *   Except for a bounded window (refresh-grace.ts): the grant's last rotated
 *   token, from the same client, within REFRESH_GRACE_SECONDS, is answered
 *   with the first use's own answer, since real clients retry and race.
 * - An authorization code takes PKCE_TRIES_PER_CODE wrong verifiers; the
 *   library would take any number. The last wrong one revokes the grant,
 *   which ends the code.
 *
 * And a client that names itself by a metadata URL on this machine or a
 * private network (client-id-host.ts) is refused before the library would
 * fetch that URL, or the keys (jwks_uri) its document points to.
 *
 * Both records live in OAUTH_KV beside the library's, under keys of their
 * own, named by a digest of the token or code, never the secret itself.
 * Only a real token or code can be spent or counted: a made-up one that
 * names a grant (its id is in every access token) changes nothing.
 */
import type { OAuthHelpers } from "@cloudflare/workers-oauth-provider";
import { sha256Hex } from "../core/encoding";
import { FORM_MEDIA_TYPE, isMediaType } from "../core/media-type";
import { withFailedChecks } from "./authorization-server";
import { refusedClientId, refusedHost } from "./client-id-host";
import { answerAgain, type KeptAnswer, keepAnswer, keptAnswer, keptFrom } from "./refresh-grace";

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
  /** Milliseconds since the epoch: the grace window's clock. */
  readonly now?: () => number;
}

/** Refreshes under way in this isolate, by spent key: a second presentation at once shares the first's answer. */
const inFlight = new Map<string, Promise<KeptAnswer>>();

async function tokenForm(request: Request): Promise<URLSearchParams | undefined> {
  // Read as the library reads it, whatever the case or parameters: a form the guard did not see as one skipped it.
  if (request.method !== "POST" || !isMediaType(request.headers.get("content-type"), FORM_MEDIA_TYPE)) return undefined;
  try {
    // Decoded by hand: workerd warns in the log whenever .text() reads a body it does not take for text, a form
    // included.
    return new URLSearchParams(new TextDecoder().decode(await request.clone().arrayBuffer()));
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

async function refreshOnce(
  deps: TokenGuardDeps,
  request: Request,
  refreshToken: string,
  client: string,
): Promise<Response> {
  const key = await spentKey(refreshToken);
  const sharing = inFlight.get(key);
  if (sharing) return answerAgain(await sharing);
  // Set before anything else is awaited, so a second presentation at once finds it.
  const outcome = settleRefresh(deps, request, refreshToken, client, key);
  inFlight.set(key, outcome);
  try {
    return answerAgain(await outcome);
  } finally {
    inFlight.delete(key);
  }
}

async function settleRefresh(
  deps: TokenGuardDeps,
  request: Request,
  refreshToken: string,
  client: string,
  key: string,
): Promise<KeptAnswer> {
  const now = deps.now?.() ?? Date.now();
  const grant = grantOf(refreshToken);
  if ((await deps.kv.get(key)) !== null) {
    const kept = grant && (await keptAnswer(deps.kv, grant.grantId, refreshToken, client, now));
    if (kept) return kept;
    await revoke(deps, refreshToken, "a refresh token that was already used came back");
    return keptFrom(await deps.answer(request));
  }
  const response = await deps.answer(request);
  const answer = await keptFrom(response);
  if (response.ok) {
    await deps.kv.put(key, "spent", { expirationTtl: Math.max(60, deps.refreshTokenTtlSeconds) });
    if (grant) await keepAnswer(deps.kv, grant.grantId, refreshToken, client, answer, now);
  }
  return answer;
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

function decodeBase64url(text: string): string | undefined {
  try {
    return atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  } catch {
    return undefined;
  }
}

/**
 * Every client id the request names: the form's, HTTP Basic's (RFC 6749 2.3.1), a client assertion's issuer and
 * subject.
 */
function namedClientIds(request: Request, form: URLSearchParams): string[] {
  const ids = [form.get("client_id") ?? ""];
  const basic = /^Basic\s+(\S+)$/i.exec(request.headers.get("authorization") ?? "")?.[1];
  const user = basic === undefined ? undefined : decodeBase64url(basic)?.split(":")[0];
  if (user !== undefined) {
    try {
      ids.push(decodeURIComponent(user.replace(/\+/g, " ")));
    } catch {
      ids.push(user);
    }
  }
  const claims = decodeBase64url(form.get("client_assertion")?.split(".")[1] ?? "");
  try {
    const { iss, sub } = JSON.parse(claims ?? "{}") as { iss?: unknown; sub?: unknown };
    for (const id of [iss, sub]) if (typeof id === "string") ids.push(id);
  } catch {
    // Not a JWT: the library refuses the assertion without fetching anything.
  }
  return ids.filter((id) => id !== "");
}

/** Why the library must not be asked to fetch for this request, or undefined. */
async function refusedFetch(
  deps: TokenGuardDeps,
  request: Request,
  form: URLSearchParams,
): Promise<string | undefined> {
  const clientIds = namedClientIds(request, form);
  for (const clientId of clientIds) {
    const why = refusedClientId(clientId);
    if (why !== undefined) return why;
  }
  // A client assertion is checked against keys the client's document may name by URL.
  const documentClient = clientIds.find((id) => /^https:\/\//i.test(id));
  if (!form.has("client_assertion") || documentClient === undefined) return undefined;
  const client = await deps.oauth.lookupClient(documentClient).catch(() => null);
  const keysWhy = client?.jwksUri === undefined ? undefined : refusedHost(client.jwksUri);
  return keysWhy && `the jwks_uri of client ${documentClient} cannot be fetched: ${keysWhy}`;
}

function invalidClient(description: string): Response {
  return Response.json(
    { error: "invalid_client", error_description: description },
    { status: 401, headers: { "Cache-Control": "no-store" } },
  );
}

/**
 * The token endpoint, with these rules; everything else (RFC 7009 revocation, other grants) goes straight to the
 * library.
 */
export async function guardedTokenEndpoint(deps: TokenGuardDeps, request: Request): Promise<Response> {
  const form = await tokenForm(request);
  const refused = form && (await refusedFetch(deps, request, form));
  if (refused) return invalidClient(refused);
  const grantType = form?.get("grant_type");
  const refreshToken = form?.get("refresh_token");
  if (grantType === "refresh_token" && refreshToken && form)
    return refreshOnce(deps, request, refreshToken, namedClientIds(request, form)[0] ?? "");
  const code = form?.get("code");
  if (grantType === "authorization_code" && code) return limitedVerifierTries(deps, request, code);
  return deps.answer(request);
}
