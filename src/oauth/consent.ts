/**
 * /authorize: the OAuth consent page. The library has already validated the
 * client, its exact redirect URI, the resource and PKCE (parseAuthRequest);
 * here a person signs in with operator credentials, chooses what the client
 * may do, and the grant is written with {account, operator, scopes}.
 *
 * Protected like the approval app: a CSRF origin check on the post, a
 * one-time handle bound to this browser by a __Host- cookie (the library's),
 * no framing, no script, and an escaping template.
 */
import {
  AuthorizationError,
  type AuthRequest,
  authorizationErrorRedirect,
  CimdFetchError,
  type OAuthHelpers,
} from "@cloudflare/workers-oauth-provider";
import { type Context, Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { z } from "zod/v4";
import { type AppError, ok, type Result, statusOf } from "../core/errors";
import { knownScopes, SCOPES, type Scope } from "../core/scopes";
import type { AppEnv } from "../http/app-env";
import { requireConfig } from "../http/config-middleware";
import { validForm } from "../http/form-fields";
import type { Html } from "../http/html-page";
import { limitedBody } from "../http/json-body";
import { servedHostOnly } from "../http/origin-guard";
import { pagePolicy, pageSecureHeaders } from "../http/page-headers";
import { limitPerAddress } from "../http/rate-limit";
import { sameOriginForms } from "../http/same-origin-forms";
import { oauthHelpers } from "./authorization-server";
import { refusedClientId } from "./client-id-host";
import { consentErrorPage, consentPage } from "./consent-page";
import {
  type GrantProps,
  grantableScopes,
  grantUserId,
  type SignedInOperator,
  SignInFieldsSchema,
  signInOperator,
} from "./operator-sign-in";
import { oauthSettings, requireOAuth } from "./require-oauth";

export const consentPages = new Hono<AppEnv>();

const MAX_FORM_BYTES = 16 * 1024;

consentPages.use("*", requireConfig, requireOAuth);
// The consent page sets its own policy (with the client's redirect origin); keep it.
consentPages.use("*", pageSecureHeaders({ overwrite: false }));
consentPages.use(
  "*",
  servedHostOnly("this site", (c, message) => errorPage(c, "Refused", message, 403)),
);
// Before anyone has signed in: each opening stores a one-time handle in KV, and
// each post is a sign-in attempt. Counted per client address, page and post together.
consentPages.use(
  "*",
  limitPerAddress("consent", (c, error) => errorPage(c, "Too many tries", error.message, 429)),
);

// Before the library reads the request: a metadata URL on this machine or a private network is never fetched.
consentPages.use("*", async (c, next) => {
  const why = refusedClientId(c.req.query("client_id") ?? "");
  if (why !== undefined) return errorPage(c, "This app could not be verified", why);
  await next();
});

function helpers(c: Context<AppEnv>): OAuthHelpers {
  return oauthHelpers(oauthSettings(c.get("config")), c.env);
}

function errorPage(
  c: Context,
  title: string,
  message: string,
  status: ContentfulStatusCode = 400,
): Response | Promise<Response> {
  return c.html(consentErrorPage(title, message), status, { "Cache-Control": "no-store" });
}

/** Parse failures: back to the client when the library says that is safe, otherwise a page here. */
function refusedRequest(c: Context<AppEnv>, error: unknown): Response | Promise<Response> {
  if (error instanceof AuthorizationError && error.redirectTo) return c.redirect(error.redirectTo, 302);
  if (error instanceof AuthorizationError)
    return errorPage(c, "This connection request is not valid", `${error.code}: ${error.description}`);
  if (error instanceof CimdFetchError)
    return errorPage(
      c,
      "This app could not be verified",
      "its client metadata document could not be fetched or is not valid",
    );
  throw error;
}

/** The validated request, or the response that ends it. PKCE is required of every client, confidential ones too. */
async function parseRequest(c: Context<AppEnv>, oauth: OAuthHelpers): Promise<AuthRequest | Response> {
  let request: AuthRequest;
  try {
    request = await oauth.parseAuthRequest(c.req.raw);
  } catch (error) {
    return refusedRequest(c, error);
  }
  if (!request.codeChallenge)
    return c.redirect(
      authorizationErrorRedirect(request, "invalid_request", "code_challenge (PKCE with S256) is required"),
      302,
    );
  return request;
}

async function renderConsent(
  c: Context<AppEnv>,
  oauth: OAuthHelpers,
  request: AuthRequest,
  options: { handle?: string; checked?: readonly Scope[]; error?: AppError },
) {
  let consent: Awaited<ReturnType<OAuthHelpers["describeConsent"]>>;
  try {
    consent = await oauth.describeConsent(request);
  } catch (error) {
    return refusedRequest(c, error);
  }
  const headers = new Headers({ "Cache-Control": "no-store" });
  let handle = options.handle;
  if (handle === undefined) {
    const transaction = await oauth.beginConsent(request);
    handle = transaction.handle;
    for (const cookie of transaction.headers.getSetCookie()) headers.append("Set-Cookie", cookie);
  }
  // The form's answer is a redirect to the client, so its origin is a form target too.
  headers.set("Content-Security-Policy", pagePolicy([new URL(consent.redirectUri).origin]));
  headers.set("Content-Type", "text/html; charset=utf-8");
  const requested = knownScopes(request.scope);
  // A client that asked for none of our scopes gets every one offered ticked; the person unticks.
  const checked = options.checked ?? (requested.length > 0 ? requested : [...SCOPES]);
  const page: Html = consentPage({ consent, handle, checked, error: options.error?.message });
  return new Response(String(await page), { status: options.error ? statusOf(options.error) : 200, headers });
}

consentPages.get("/", async (c) => {
  const oauth = helpers(c);
  const request = await parseRequest(c, oauth);
  if (request instanceof Response) return request;
  return renderConsent(c, oauth, request, {});
});

/** The consent form: its one-time handle, the button pressed, the ticked scopes (each a checkbox), and the sign-in. */
const ConsentForm = SignInFieldsSchema.extend({
  handle: z.string().default(""),
  decision: z.string().optional(),
  scope: z.array(z.string()).default([]).transform(knownScopes),
});
type ConsentForm = z.output<typeof ConsentForm>;

/** Who signed in, and what they chose to grant, or the problem to show on the page. */
async function signedInGrant(
  c: Context<AppEnv>,
  form: ConsentForm,
): Promise<Result<{ operator: SignedInOperator; scopes: Scope[] }>> {
  const operator = await signInOperator(c.get("config"), c.req.raw, form);
  if (!operator.ok) return operator;
  const scopes = grantableScopes(form.scope, operator.value);
  return scopes.ok ? ok({ operator: operator.value, scopes: scopes.value }) : scopes;
}

const NOT_FROM_OUR_PAGE = "this form did not come from the consent page; start connecting again from the app";
const EXPIRED =
  "This page was already used, has expired (after 10 minutes), or was opened in another browser. Nothing was granted.";

/** A form body we will not read. */
const refusedForm = (c: Context, error: AppError) => errorPage(c, "Refused", error.message, statusOf(error));

consentPages.post(
  "/",
  sameOriginForms((c) => errorPage(c, "Refused", NOT_FROM_OUR_PAGE, 403)),
  limitedBody("form", MAX_FORM_BYTES, refusedForm),
  validForm(ConsentForm, refusedForm, ["scope"]),
  async (c) => {
    const oauth = helpers(c);
    const form = c.req.valid("form");
    const handle = form.handle;
    try {
      if (form.decision !== "approve") {
        const denied = await oauth.denyConsent(c.req.raw, handle);
        return new Response(null, { status: 302, headers: denied.headers });
      }
      const grant = await signedInGrant(c, form);
      if (!grant.ok) {
        // The handle is still unused: show the same page again with the problem, keeping the choices.
        const request = await parseRequest(c, oauth);
        if (request instanceof Response) return request;
        return renderConsent(c, oauth, request, { handle, checked: form.scope, error: grant.error });
      }
      const { operator, scopes } = grant.value;
      const approved = await oauth.approveConsent(c.req.raw, handle, { scope: scopes });
      const clientName = await oauth.lookupClient(approved.request.clientId).then(
        (client) => client?.clientName,
        () => undefined, // a metadata document that stopped resolving only costs the name in the grant list
      );
      const props: GrantProps = {
        account: operator.account,
        operator: operator.operator,
        scopes,
        credential: operator.credential,
      };
      const { redirectTo } = await oauth.completeAuthorization({
        request: approved.request,
        userId: await grantUserId(operator),
        // Stored in clear beside the grant, for listing it: names only, never the credential.
        metadata: {
          account: props.account,
          operator: props.operator,
          client_name: clientName ?? approved.request.clientId,
        },
        scope: approved.request.scope,
        props,
      });
      approved.headers.set("Location", redirectTo);
      return new Response(null, { status: 302, headers: approved.headers });
    } catch (error) {
      if (error instanceof AuthorizationError) return errorPage(c, "This page can no longer be used", EXPIRED);
      throw error;
    }
  },
);
