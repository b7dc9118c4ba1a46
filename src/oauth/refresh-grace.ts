/**
 * The refresh-token grace window. Some MCP clients (claude.ai's connector proxy among them) present a refresh token
 * again just after it was rotated, in a retry of a lost answer or in a race of two requests. Single use alone
 * revoked their grant for it. So for REFRESH_GRACE_SECONDS after a rotation, the token it rotated (only that one:
 * the grant's last) presented again by the same client is answered with the first use's answer, the very same
 * pair: nothing new is issued, and no scope or lifetime beyond what the first answer gave. Anything else, a token
 * from further back, another client, or the same token after the window, is a reuse, and revokes as before.
 *
 * The first answer is kept in OAUTH_KV for the window, under the grant, encrypted (AES-GCM) with a key derived from
 * the rotated token itself: only whoever presents that token can read it, and KV never holds a token in clear.
 * Concurrent presentations in one isolate share the first one's answer (`inFlight`); two isolates racing each reach
 * the library, which then issues two pairs and keeps the later.
 */
import { base64url, fromBase64url, sha256Hex } from "../core/encoding";

export const REFRESH_GRACE_SECONDS = 30;

interface GraceRecord {
  readonly token: string;
  readonly client: string;
  readonly at: number;
  readonly iv: string;
  readonly answer: string;
}

/** What a kept answer is: the library's status, headers (CORS among them) and JSON body, answered again as sent. */
export interface KeptAnswer {
  readonly status: number;
  readonly headers: readonly (readonly [string, string])[];
  readonly body: string;
}

export async function keptFrom(response: Response): Promise<KeptAnswer> {
  const headers = [...response.headers].filter(([name]) => name.toLowerCase() !== "content-length");
  return { status: response.status, headers, body: await response.text() };
}

const graceKey = (grantId: string) => `order-ops:refresh-grace:${grantId}`;

async function keyOf(refreshToken: string): Promise<CryptoKey> {
  const raw = await crypto.subtle.digest(
    "SHA-256",
    new TextEncoder().encode(`order-ops refresh grace\n${refreshToken}`),
  );
  return crypto.subtle.importKey("raw", raw, "AES-GCM", false, ["encrypt", "decrypt"]);
}

/** Keeps the answer to `refreshToken`'s rotation for the window; a later rotation of the grant replaces it. */
export async function keepAnswer(
  kv: KVNamespace,
  grantId: string,
  refreshToken: string,
  client: string,
  answer: KeptAnswer,
  now: number,
): Promise<void> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv },
    await keyOf(refreshToken),
    new TextEncoder().encode(JSON.stringify(answer)),
  );
  const record: GraceRecord = {
    token: await sha256Hex(refreshToken),
    client,
    at: now,
    iv: base64url(iv),
    answer: base64url(sealed),
  };
  // KV keeps a key for at least 60 seconds; the window is judged by `at`, not by the expiry.
  await kv.put(graceKey(grantId), JSON.stringify(record), { expirationTtl: 60 });
}

/** The first answer, when `refreshToken` is the grant's last rotated token, from `client`, within the window. */
export async function keptAnswer(
  kv: KVNamespace,
  grantId: string,
  refreshToken: string,
  client: string,
  now: number,
): Promise<KeptAnswer | undefined> {
  const record = await kv.get<GraceRecord>(graceKey(grantId), "json");
  if (!record || record.token !== (await sha256Hex(refreshToken)) || record.client !== client) return undefined;
  if (now - record.at > REFRESH_GRACE_SECONDS * 1000 || now < record.at) return undefined;
  try {
    const opened = await crypto.subtle.decrypt(
      { name: "AES-GCM", iv: fromBase64url(record.iv) },
      await keyOf(refreshToken),
      fromBase64url(record.answer),
    );
    return JSON.parse(new TextDecoder().decode(opened)) as KeptAnswer;
  } catch {
    return undefined;
  }
}

export function answerAgain(kept: KeptAnswer): Response {
  return new Response(kept.body, { status: kept.status, headers: kept.headers.map(([name, value]) => [name, value]) });
}
