/**
 * Security headers, all from hono/secure-headers: the one every answer
 * carries, and those of every server-rendered page (the approval app, the
 * run pages, the OAuth consent page). The pages' policy: no script at all
 * (the pages are plain forms, and live pages refresh with
 * <meta http-equiv="refresh">), no framing, and forms post only to this site.
 */
import { secureHeaders } from "hono/secure-headers";

/**
 * X-Content-Type-Options: nosniff on every answer, whichever code drew it
 * (our routes, the MCP SDK, the OAuth library, the error handlers), so a
 * browser never reads a JSON body that echoes input as a script or a page.
 * Nothing else: the page headers below are for HTML, and the JSON answers
 * keep the headers they had. A handler that passed on a fetch()'s own
 * response (immutable headers) would need to copy it first; none does.
 */
export const noSniff = secureHeaders({
  crossOriginEmbedderPolicy: false,
  crossOriginResourcePolicy: false,
  crossOriginOpenerPolicy: false,
  originAgentCluster: false,
  referrerPolicy: false,
  strictTransportSecurity: false,
  xContentTypeOptions: true,
  xDnsPrefetchControl: false,
  xDownloadOptions: false,
  xFrameOptions: false,
  xPermittedCrossDomainPolicies: false,
  xXssProtection: false,
  removePoweredBy: false,
  // A page's own headers (pageSecureHeaders) are kept as they are.
  overwrite: false,
});

const PAGE_POLICY = {
  defaultSrc: ["'none'"],
  styleSrc: ["'unsafe-inline'"],
  formAction: ["'self'"],
  frameAncestors: ["'none'"],
  baseUri: ["'none'"],
};

/** `overwrite: false` keeps a policy the page set itself (pagePolicy below). */
export function pageSecureHeaders(options: { overwrite?: boolean } = {}) {
  return secureHeaders({
    contentSecurityPolicy: PAGE_POLICY,
    xFrameOptions: "DENY",
    // same-origin, not no-referrer: with no-referrer Chromium sends `Origin: null` on our own form posts.
    referrerPolicy: "same-origin",
    ...options,
  });
}

/**
 * The same policy as header text, with more origins a form may post to: a
 * page whose form answers with a redirect elsewhere needs that origin too,
 * because browsers hold the redirect to form-action as well.
 */
export function pagePolicy(formTargets: readonly string[]): string {
  return Object.entries({ ...PAGE_POLICY, formAction: [...PAGE_POLICY.formAction, ...formTargets] })
    .map(
      ([directive, sources]) =>
        `${directive.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)} ${sources.join(" ")}`,
    )
    .join("; ");
}
