/**
 * Approver sessions for the approval app and the run pages. The cookie holds only a random
 * session id, signed (hono/cookie) so a forged one is refused without a
 * database read; the session itself is a D1 row, so signing out revokes it on
 * the server and a copied cookie stops working at once. The signing key is
 * derived from APPROVER_TOKENS, so rotating or removing a token also ends the
 * sessions it opened. Where rows live is the caller's choice (store/ has the
 * D1 one): auth/ sits below store/ and never imports it.
 */
import type { Context } from "hono";
import { deleteCookie, getSignedCookie, setSignedCookie } from "hono/cookie";
import type { Approver, Config } from "../config/config";
import { sha256Hex } from "../core/encoding";
import type { AppEnv } from "../http/app-env";

// Named apart from the old `approval_session` (Path=/approvals): a leftover
// one would otherwise be sent first on /approvals and shadow the new cookie.
export const SESSION_COOKIE = "approver_session";
/** The approval app (/approvals) and the run pages (/runs) share one sign-in. */
const COOKIE_PATH = "/";
const SESSION_MINUTES = 30;

export interface ApproverSession {
  readonly approver: Approver;
  readonly csrfToken: string;
  readonly expiresAt: Date;
  /** The digest the row is stored under. */
  readonly sessionHash: string;
}

/** One stored session; `session_hash` is the SHA-256 of the id in the cookie. */
export interface ApproverSessionRow {
  readonly session_hash: string;
  readonly account: string;
  readonly approver: string;
  readonly csrf_token: string;
  readonly created_at: string;
  readonly expires_at: string;
}

export interface ApproverSessionStore {
  insert(row: ApproverSessionRow): Promise<void>;
  /** The row with this digest that is still live at `now` (ISO), if any. */
  find(sessionHash: string, now: string): Promise<ApproverSessionRow | null>;
  delete(sessionHash: string): Promise<void>;
}

const secrets = new WeakMap<Config, Promise<ArrayBuffer>>();

/** The cookie-signing key for this configuration's approvers. */
export function sessionSigningSecret(config: Config): Promise<ArrayBuffer> {
  let secret = secrets.get(config);
  if (!secret) {
    const material = JSON.stringify([...config.approverTokens.entries()].sort(([a], [b]) => a.localeCompare(b)));
    secret = crypto.subtle.digest(
      "SHA-256",
      new TextEncoder().encode(`order-ops-edge approval sessions v2\n${material}`),
    );
    secrets.set(config, secret);
  }
  return secret;
}

function cookieOptions(c: Context<AppEnv>) {
  return {
    path: COOKIE_PATH,
    httpOnly: true,
    sameSite: "Strict",
    secure: new URL(c.req.url).protocol === "https:",
    maxAge: SESSION_MINUTES * 60,
  } as const;
}

/** Stores a new session for the approver and sets its cookie on the response. */
export async function openSession(
  c: Context<AppEnv>,
  store: ApproverSessionStore,
  approver: Approver,
  now = new Date(),
): Promise<void> {
  const sessionId = crypto.randomUUID();
  await store.insert({
    session_hash: await sha256Hex(sessionId),
    account: approver.account,
    approver: approver.approver,
    csrf_token: crypto.randomUUID(),
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + SESSION_MINUTES * 60_000).toISOString(),
  });
  await setSignedCookie(c, SESSION_COOKIE, sessionId, await sessionSigningSecret(c.get("config")), cookieOptions(c));
}

/**
 * The session behind the request's cookie, if its signature, row, expiry and
 * approver all still hold. Any route environment with the config will do: a
 * route that goes on with the session keeps it in its own variables.
 */
export async function currentSession<E extends AppEnv>(
  c: Context<E>,
  store: ApproverSessionStore,
  now = new Date(),
): Promise<ApproverSession | undefined> {
  const config = c.get("config");
  const sessionId = await getSignedCookie(c, await sessionSigningSecret(config), SESSION_COOKIE);
  if (typeof sessionId !== "string") return undefined;
  const sessionHash = await sha256Hex(sessionId);
  const row = await store.find(sessionHash, now.toISOString());
  if (!row) return undefined;
  // As configured now: a token removed ends its sessions, and a role changed applies at once.
  const configured = [...config.approverTokens.values()].find(
    (a) => a.account === row.account && a.approver === row.approver,
  );
  if (!configured) return undefined;
  return { approver: configured, csrfToken: row.csrf_token, expiresAt: new Date(row.expires_at), sessionHash };
}

/** Revokes the session on the server and clears its cookie. */
export async function closeSession<E extends AppEnv>(
  c: Context<E>,
  store: ApproverSessionStore,
  session: ApproverSession,
): Promise<void> {
  await store.delete(session.sessionHash);
  deleteCookie(c, SESSION_COOKIE, { path: COOKIE_PATH });
}

/** Constant-time comparison of the submitted CSRF token with the session's. */
export function csrfMatches(session: ApproverSession, submitted: string | undefined): boolean {
  if (submitted === undefined) return false;
  const a = new TextEncoder().encode(session.csrfToken);
  const b = new TextEncoder().encode(submitted);
  return a.byteLength === b.byteLength && crypto.subtle.timingSafeEqual(a, b);
}
