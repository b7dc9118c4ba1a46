import type { Approver, Config } from "../config/config";
import { base64url, fromBase64url } from "../core/encoding";

/**
 * Approver sessions for the approval page: a signed, expiring cookie instead of
 * server-side state. The signing key is derived from APPROVER_TOKENS, so
 * rotating or removing an approver token also ends the sessions it opened.
 */
export const SESSION_COOKIE = "approval_session";
export const SESSION_MINUTES = 30;

interface SessionPayload {
  readonly account: string;
  readonly approver: string;
  readonly expires: number;
  readonly nonce: string;
}

export interface ApproverSession {
  readonly approver: Approver;
  readonly csrfToken: string;
  readonly expiresAt: Date;
}

const encoder = new TextEncoder();
const keys = new WeakMap<Config, Promise<CryptoKey>>();

function signingKey(config: Config): Promise<CryptoKey> {
  let key = keys.get(config);
  if (!key) {
    const material = JSON.stringify([...config.approverTokens.entries()].sort(([a], [b]) => a.localeCompare(b)));
    key = crypto.subtle
      .digest("SHA-256", encoder.encode(`order-ops-edge approval sessions v1\n${material}`))
      .then((digest) => crypto.subtle.importKey("raw", digest, { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]));
    keys.set(config, key);
  }
  return key;
}

async function sign(config: Config, text: string): Promise<string> {
  return base64url(await crypto.subtle.sign("HMAC", await signingKey(config), encoder.encode(text)));
}

async function csrfFor(config: Config, nonce: string): Promise<string> {
  return sign(config, `csrf:${nonce}`);
}

export async function openSession(config: Config, approver: Approver, now: Date): Promise<{ cookieValue: string; session: ApproverSession }> {
  const nonce = base64url(crypto.getRandomValues(new Uint8Array(16)));
  const expires = Math.floor(now.getTime() / 1000) + SESSION_MINUTES * 60;
  const payload = base64url(encoder.encode(JSON.stringify({ account: approver.account, approver: approver.approver, expires, nonce } satisfies SessionPayload)));
  return {
    cookieValue: `${payload}.${await sign(config, payload)}`,
    session: { approver, csrfToken: await csrfFor(config, nonce), expiresAt: new Date(expires * 1000) },
  };
}

/** The session behind a cookie value, if its signature, expiry and approver all still hold. */
export async function readSession(config: Config, cookieValue: string | undefined, now: Date): Promise<ApproverSession | undefined> {
  if (!cookieValue) return undefined;
  const [payload, signature, extra] = cookieValue.split(".");
  if (!payload || !signature || extra !== undefined) return undefined;
  let valid = false;
  try {
    valid = await crypto.subtle.verify("HMAC", await signingKey(config), fromBase64url(signature), encoder.encode(payload));
  } catch {
    return undefined;
  }
  if (!valid) return undefined;
  let parsed: SessionPayload;
  try {
    parsed = JSON.parse(new TextDecoder().decode(fromBase64url(payload))) as SessionPayload;
  } catch {
    return undefined;
  }
  if (typeof parsed.expires !== "number" || parsed.expires * 1000 <= now.getTime()) return undefined;
  const stillConfigured = [...config.approverTokens.values()].some((a) => a.account === parsed.account && a.approver === parsed.approver);
  if (!stillConfigured) return undefined;
  return {
    approver: { account: parsed.account, approver: parsed.approver },
    csrfToken: await csrfFor(config, parsed.nonce),
    expiresAt: new Date(parsed.expires * 1000),
  };
}

/** Constant-time comparison of the submitted CSRF token with the session's. */
export function csrfMatches(session: ApproverSession, submitted: string | undefined): boolean {
  if (submitted === undefined) return false;
  const a = encoder.encode(session.csrfToken);
  const b = encoder.encode(submitted);
  return a.byteLength === b.byteLength && crypto.subtle.timingSafeEqual(a, b);
}
