/** The browser approval app over raw HTTP: pages, form posts, session cookies. */
import { env } from "cloudflare:workers";
import { generateSignedCookie } from "hono/cookie";
import { expect } from "vitest";
import { SESSION_COOKIE, sessionSigningSecret } from "../../src/auth/approver-session";
import { parseConfig } from "../../src/config/config";
import { sha256Hex } from "../../src/core/encoding";
import { d1ApproverSessions } from "../../src/store/approver-sessions";
import { workerFetch } from "./mcp-client";
import { ACME_APPROVER, BASE_URL } from "./ops";

/** The test's own escaper, so the expected markup does not come from the code under test. */
export function escapeHtml(value: string | number | null): string {
  return String(value ?? "")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

/**
 * What a reader sees of some markup: inline tags vanish, other tags become
 * spaces, entities their characters, and runs of space one.
 */
export function textOf(html: string): string {
  return html
    .replace(/<style>[\s\S]*?<\/style>/g, " ")
    .replace(/<\/?(span|code|time|a|b|strong)\b[^>]*>/g, "")
    .replace(/<[^>]*>/g, " ")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, "&")
    .replace(/\s+/g, " ")
    .trim();
}

export interface Page {
  status: number;
  html: string;
  headers: Headers;
}

/** The Content-Security-Policy of every approval app page. */
export const CSP =
  "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/** The headers and markup every approval app page carries. */
export function expectSafePage(p: Page): void {
  expect(p.headers.get("content-security-policy")).toBe(CSP);
  expect(p.headers.get("x-frame-options")).toBe("DENY");
  expect(p.headers.get("cache-control")).toBe("no-store");
  expect(p.headers.get("content-type")).toMatch(/^text\/html/);
  expect(p.html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
}

export async function page(response: Response): Promise<Page> {
  return { status: response.status, html: await response.text(), headers: response.headers };
}

export function get(path: string, cookie?: string, base = BASE_URL): Promise<Response> {
  return workerFetch(`${base}${path}`, { redirect: "manual", headers: cookie === undefined ? {} : { cookie } });
}

/**
 * The headers a browser sends with a form post, by where the posting page
 * came from: Origin and the Fetch Metadata headers always travel together.
 * `Origin: null` is what an opaque origin (a sandboxed frame, a data: URL) sends.
 */
export function formPostedFrom(
  origin: string,
  site: "same-origin" | "same-site" | "cross-site",
): Record<string, string> {
  return { origin, "sec-fetch-site": site, "sec-fetch-mode": "navigate", "sec-fetch-dest": "document" };
}

/** A post from one of our own pages, opened at PUBLIC_BASE_URL. */
export const FROM_OUR_PAGE = formPostedFrom(BASE_URL, "same-origin");

/** `base` is where the browser thinks it is: it becomes the request's Host. */
export function postForm(
  path: string,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
  base = BASE_URL,
): Promise<Response> {
  return workerFetch(`${base}${path}`, {
    method: "POST",
    // The Worker is called through a binding, which would otherwise follow a 303 itself.
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(fields).toString(),
  });
}

export function signIn(
  token: string,
  next: string,
  headers: Record<string, string> = {},
  base = BASE_URL,
): Promise<Response> {
  return postForm("/approvals/sign-in", { token, next }, headers, base);
}

/** The `name=value` of the approver_session Set-Cookie, ready for a Cookie header. */
export function sessionCookieOf(response: Response): string {
  const [setCookie] = response.headers.getSetCookie();
  if (!setCookie) throw new Error("no Set-Cookie");
  const pair = setCookie.split(";")[0] ?? "";
  expect(pair.startsWith("approver_session=")).toBe(true);
  return pair;
}

export async function sessionFor(token: string): Promise<string> {
  const response = await signIn(token, "/approvals");
  expect(response.status).toBe(303);
  return sessionCookieOf(response);
}

export function csrfOf(html: string): string {
  const match = /<input type="hidden" name="csrf" value="([^"]+)">/.exec(html);
  if (!match?.[1]) throw new Error("no csrf field on the page");
  return match[1];
}

export function expectSignInForm(html: string, next: string): void {
  expect(html).toContain('<form class="card" method="post" action="/approvals/sign-in">');
  expect(html).toContain(`<input type="hidden" name="next" value="${escapeHtml(next)}">`);
  expect(html).toContain('<input id="token" name="token" type="password"');
  expect(html).not.toContain('name="csrf"');
}

/** A Cookie header for a session row written straight into D1, opened at `openedAt`. */
export async function storedSessionCookie(openedAt: Date): Promise<string> {
  const config = parseConfig(env);
  if (!config.ok) throw new Error(config.error.message);
  const sessionId = crypto.randomUUID();
  await d1ApproverSessions(env.DB).insert({
    session_hash: await sha256Hex(sessionId),
    account: "acme",
    approver: ACME_APPROVER,
    csrf_token: crypto.randomUUID(),
    created_at: openedAt.toISOString(),
    expires_at: new Date(openedAt.getTime() + 30 * 60_000).toISOString(),
  });
  const setCookie = await generateSignedCookie(SESSION_COOKIE, sessionId, await sessionSigningSecret(config.value));
  return setCookie.split(";")[0] ?? "";
}
