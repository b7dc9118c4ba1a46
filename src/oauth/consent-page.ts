/**
 * The OAuth consent page. Everything about the client (its name, domain,
 * redirect URI, the scopes it asked for) comes from a registration or a
 * metadata document that anyone can write, so it is only ever interpolated
 * through hono/html, which escapes it.
 */
import type { ConsentDescription } from "@cloudflare/workers-oauth-provider";
import { html } from "hono/html";
import { SCOPE_DESCRIPTIONS, SCOPES, type Scope } from "../core/scopes";
import { type Html, layout } from "../http/html-page";
import { SIGN_IN_FIELD } from "./operator-sign-in";

interface ConsentPageOptions {
  readonly consent: ConsentDescription;
  /** The one-time, browser-bound handle from beginConsent(). */
  readonly handle: string;
  /** Ticked when the page opens: what the client asked for, or, after a failed try, what the person chose. */
  readonly checked: readonly Scope[];
  readonly error?: string | undefined;
}

function whoIsAsking(consent: ConsentDescription): Html {
  return consent.clientDomain
    ? html`<p>Published by <strong>${consent.clientDomain}</strong> (its client id is a document on that domain).</p>`
    : html`<p class="muted">This app registered itself, so its name is not verified.</p>`;
}

function scopeChoice(scope: Scope, checked: boolean, requested: boolean): Html {
  return html`<label class="choice"><input type="checkbox" name="scope" value="${scope}" ${checked ? "checked" : ""}><span><strong>${scope}</strong>${requested ? html` <span class="muted">(requested)</span>` : ""}<br>${SCOPE_DESCRIPTIONS[scope]}</span></label>`;
}

export function consentPage(options: ConsentPageOptions): Html {
  const { consent } = options;
  const error = options.error ? html`<div class="card error" role="alert">${options.error}</div>` : "";
  const loopback = consent.redirectIsLoopback
    ? html`<div class="card warning"><p>This sends access to <strong>an app on this computer</strong>. Any program on it could be listening, whatever name it gives; continue only if you just started connecting from it.</p></div>`
    : "";
  const choices = SCOPES.map((scope) =>
    scopeChoice(scope, options.checked.includes(scope), consent.scope.includes(scope)),
  );
  return layout(
    `Connect ${consent.clientName}`,
    html`<h1>Connect ${consent.clientName} to Order Ops Edge?</h1>
<div class="card">
${whoIsAsking(consent)}
<p>After you allow it, access is sent to <strong>${consent.redirectHost}</strong>:<br><code>${consent.redirectUri}</code></p>
</div>
${loopback}${error}
<form class="card" method="post">
<input type="hidden" name="handle" value="${options.handle}">
<h2>What may it do?</h2>
${choices}
<p class="muted">No choice lets it approve a proposal: a person approves in the approval app.</p>
<h2>Sign in</h2>
<label for="sign-in">${SIGN_IN_FIELD.label}</label>
<input id="sign-in" name="${SIGN_IN_FIELD.name}" type="password" autocomplete="current-password">
<p class="muted">The app acts as the operator this token belongs to, in that operator's account, and never gets the token itself.</p>
<div class="actions">
<button class="approve" type="submit" name="decision" value="approve">Allow</button>
<button class="reject" type="submit" name="decision" value="deny">Deny</button>
</div>
</form>`,
  );
}

/** A page for a request that cannot continue (and cannot safely be sent back to the client). */
export function consentErrorPage(title: string, message: string): Html {
  return layout(
    title,
    html`<h1>${title}</h1><div class="card error" role="alert">${message}</div><p class="muted">Start connecting again from the app.</p>`,
  );
}
