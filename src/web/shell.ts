/**
 * What every signed-in browser page shares, the approval pages (/approvals)
 * and the run pages (/runs): config, strict headers, the approver sessions,
 * and where sign-in may send the browser afterwards.
 */
import type { Context, MiddlewareHandler } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { NO_APPROVERS_MESSAGE } from "../auth/approver";
import type { ApproverSession } from "../auth/approver-session";
import type { AppEnv } from "../http/app-env";
import { requireConfig } from "../http/config-middleware";
import type { Html } from "../http/html-page";
import { servedHostOnly } from "../http/origin-guard";
import { pageSecureHeaders } from "../http/page-headers";
import { d1ApproverSessions } from "../store/approver-sessions";
import { deploymentDatabase } from "../store/databases";
import { messagePage, type SignedIn } from "./pages";

export function page(c: Context, body: Html, status: ContentfulStatusCode = 200): Response | Promise<Response> {
  return c.html(body, status, { "Cache-Control": "no-store" });
}

const approversConfigured: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (c.get("config").approverTokens.size === 0)
    return page(c, messagePage("Approvals are not configured", NO_APPROVERS_MESSAGE), 503);
  await next();
};

export const browserPageMiddleware: readonly MiddlewareHandler<AppEnv>[] = [
  requireConfig,
  pageSecureHeaders(),
  // Before the sign-in and its session: in development the approver tokens are public.
  servedHostOnly("this site", (c, message) => page(c, messagePage("Refused", message), 403)),
  approversConfigured,
];

export function sessions(c: { readonly env: Env }) {
  return d1ApproverSessions(deploymentDatabase(c.env));
}

export function signedIn(session: ApproverSession): SignedIn {
  return { approver: session.approver.approver, csrfToken: session.csrfToken, person: session.approver };
}

/** Redirect targets after sign-in: the approval app, a run page or a search page, nothing else. */
export function safeNext(next: unknown): string {
  return typeof next === "string" &&
    /^(\/approvals(\/[A-Za-z0-9_\-%]*)?|\/runs\/(searches\/)?[A-Za-z0-9_\-%]+)$/.test(next)
    ? next
    : "/approvals";
}
