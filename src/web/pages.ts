/**
 * The approval app's page shell and the fragments every page shares.
 * Plain HTML forms, no script: they work on any phone, and there is no client
 * code to trust. Pages are built with hono/html, which escapes every
 * interpolated value; only nested templates and the constant stylesheet go in
 * unescaped.
 * The frame and stylesheet are http/html-page.ts.
 */
import { html } from "hono/html";
import type { Approver } from "../config/token-maps";
import { withUnsafeShown } from "../core/free-text";
import { type Html, layout } from "../http/html-page";
import type { Sentence } from "./approval/explain";
import { absoluteTime, piecesOf, relativeTime } from "./format";

export interface SignedIn {
  readonly approver: string;
  readonly csrfToken: string;
  /** The signed-in person as configured: their role, and the operator name they also work under. */
  readonly person: Approver;
}

function signOutForm(csrfToken: string): Html {
  return html`<form method="post" action="/approvals/sign-out"><input type="hidden" name="csrf" value="${csrfToken}"><button class="plain" type="submit">Sign out</button></form>`;
}

/**
 * The header of every signed-in page, the approval pages and the run pages
 * alike, so it names the product rather than one of them; the link goes to
 * the pending proposals, where every signed-in approver starts.
 */
export function pageHeader(who: Pick<SignedIn, "approver" | "csrfToken">): Html {
  return html`<header><a class="brand" href="/approvals">Order Ops Edge</a><span class="muted">Signed in as ${who.approver}</span>${signOutForm(who.csrfToken)}</header>`;
}

/** "in 12 min", with the exact time on hover and in `datetime`. */
export function timeTag(iso: string, now: Date): Html {
  return html`<time datetime="${iso}" title="${absoluteTime(iso)}">${relativeTime(iso, now)}</time>`;
}

/** An id that must stay whole and copyable. */
export function idTag(id: string): Html {
  return html`<code>${id}</code>`;
}

/**
 * Free text whose hyphenated tokens (order, SKU and proposal ids) never break across lines. A control or
 * bidirectional formatting character stored before inputs refused them is shown as [U+XXXX]: left in, a U+202E in a
 * cancel reason drew the rest of the rationale reversed.
 */
export function textTag(text: string): Html {
  return html`${piecesOf(withUnsafeShown(text)).map((piece) => (piece.unbroken ? html`<span class="nowrap">${piece.text}</span>` : piece.text))}`;
}

export function sentenceTag(sentence: Sentence, now: Date): Html {
  const parts = sentence.map((segment) => {
    if (typeof segment === "string") return textTag(segment);
    if ("at" in segment) return timeTag(segment.at, now);
    return segment.link
      ? html`<a href="/approvals/${encodeURIComponent(segment.proposal)}">${idTag(segment.proposal)}</a>`
      : idTag(segment.proposal);
  });
  return html`${parts}`;
}

export function signInPage(options: { next: string; error?: string }): Html {
  const error = options.error ? html`<div class="card error" role="alert">${options.error}</div>` : "";
  return layout(
    "Sign in",
    html`<h1>Approver sign-in</h1>
<p class="muted">Proposal and run links show nothing until an approver signs in. Use your approver token; MCP tokens cannot approve.</p>
${error}
<form class="card" method="post" action="/approvals/sign-in">
<input type="hidden" name="next" value="${options.next}">
<label for="token">Approver token</label>
<input id="token" name="token" type="password" autocomplete="current-password" required>
<div class="actions"><button class="approve" type="submit">Sign in</button></div>
</form>`,
  );
}

export function messagePage(title: string, message: string, session?: SignedIn): Html {
  const header = session ? pageHeader(session) : "";
  return layout(
    title,
    html`${header}<h1>${title}</h1><div class="card">${message}</div><p><a href="/approvals">Back to pending proposals</a></p>`,
  );
}
