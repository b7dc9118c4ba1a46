/**
 * The OAuth flow by hand, over the Worker's real HTTP surface: register a
 * client, open the consent page, sign in and choose scopes, exchange the
 * code. Each step returns the raw response where a test needs to see it.
 */
import { expect } from "vitest";
import { SCOPES, type Scope } from "../../src/core/scopes";
import { workerFetch } from "./mcp-client";
import { type JsonRpcMessage, postMcp, rpc } from "./mcp-raw";
import { ACME_TOKEN } from "./tokens";

export const ORIGIN = "http://localhost";
export const RESOURCE = `${ORIGIN}/mcp`;
export const REDIRECT = "http://127.0.0.1:9999/callback";

/** How a helper reaches the Worker; tests that swap a binding pass one built on fetchWithEnv. */
export type Fetcher = (url: string, init?: RequestInit) => Promise<Response>;

/** A browser's view of one response: redirects are answers to look at, not to follow. */
export const oauthFetch: Fetcher = (url, init = {}) => workerFetch(url, { redirect: "manual", ...init });

export interface RegisteredClient {
  readonly client_id: string;
  readonly client_secret?: string;
}

export async function registerClient(
  metadata: Record<string, unknown> = {},
  via: Fetcher = oauthFetch,
): Promise<RegisteredClient> {
  const response = await via(`${ORIGIN}/oauth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      client_name: "Test Client",
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: "none",
      ...metadata,
    }),
  });
  expect(response.status, await response.clone().text()).toBe(201);
  return response.json();
}

function base64url(bytes: ArrayBuffer): string {
  return btoa(String.fromCharCode(...new Uint8Array(bytes)))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
}

export async function pkcePair(): Promise<{ verifier: string; challenge: string }> {
  const verifier = `${crypto.randomUUID()}${crypto.randomUUID()}`;
  const challenge = base64url(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)));
  return { verifier, challenge };
}

export interface AuthorizeParams {
  readonly clientId: string;
  readonly challenge?: string | undefined;
  readonly scope?: string;
  readonly redirectUri?: string;
  readonly resource?: string;
  readonly state?: string;
}

export function authorizeUrl(params: AuthorizeParams): string {
  const query = new URLSearchParams({
    response_type: "code",
    client_id: params.clientId,
    redirect_uri: params.redirectUri ?? REDIRECT,
    state: params.state ?? "state-123",
    resource: params.resource ?? RESOURCE,
  });
  if (params.scope !== undefined) query.set("scope", params.scope);
  if (params.challenge !== undefined) {
    query.set("code_challenge", params.challenge);
    query.set("code_challenge_method", "S256");
  }
  return `${ORIGIN}/authorize?${query}`;
}

export interface ConsentPage {
  readonly url: string;
  readonly response: Response;
  readonly html: string;
  readonly handle: string;
  /** The browser-binding cookie, as a Cookie header value. */
  readonly cookie: string;
}

export async function openConsent(url: string, via: Fetcher = oauthFetch): Promise<ConsentPage> {
  const response = await via(url);
  const html = await response.clone().text();
  expect(response.status, html).toBe(200);
  const handle = /name="handle" value="([^"]+)"/.exec(html)?.[1] ?? "";
  expect(handle).not.toBe("");
  const cookie = response.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  return { url, response, html, handle, cookie };
}

export interface ConsentAnswer {
  readonly token?: string;
  readonly scopes?: readonly string[];
  readonly decision?: "approve" | "deny";
  readonly handle?: string;
  readonly cookie?: string;
  readonly headers?: Record<string, string>;
}

export function submitConsent(
  page: ConsentPage,
  answer: ConsentAnswer = {},
  via: Fetcher = oauthFetch,
): Promise<Response> {
  const form = new URLSearchParams({
    handle: answer.handle ?? page.handle,
    decision: answer.decision ?? "approve",
    token: answer.token ?? ACME_TOKEN,
  });
  for (const scope of answer.scopes ?? SCOPES) form.append("scope", scope);
  return via(page.url, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      cookie: answer.cookie ?? page.cookie,
      ...answer.headers,
    },
    body: form.toString(),
  });
}

export interface IssuedCode {
  readonly code: string;
  readonly verifier: string;
  readonly redirect: URL;
}

/** Authorize as the acme operator with these scopes ticked, and return the code from the redirect. */
export async function authorizeCode(
  client: RegisteredClient,
  scopes: readonly Scope[] = SCOPES,
  token = ACME_TOKEN,
  via: Fetcher = oauthFetch,
): Promise<IssuedCode> {
  const { verifier, challenge } = await pkcePair();
  const page = await openConsent(authorizeUrl({ clientId: client.client_id, challenge, scope: SCOPES.join(" ") }), via);
  const answer = await submitConsent(page, { scopes, token }, via);
  expect(answer.status, await answer.clone().text()).toBe(302);
  const redirect = new URL(answer.headers.get("location") ?? "");
  const code = redirect.searchParams.get("code") ?? "";
  expect(code).not.toBe("");
  return { code, verifier, redirect };
}

export function tokenRequest(fields: Record<string, string>, via: Fetcher = oauthFetch): Promise<Response> {
  return via(`${ORIGIN}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields).toString(),
  });
}

export interface TokenSet {
  readonly access_token: string;
  readonly refresh_token: string;
  readonly scope: string;
  readonly expires_in: number;
  readonly resource?: string;
}

export function exchangeCode(
  client: RegisteredClient,
  issued: IssuedCode,
  extra: Record<string, string> = {},
  via: Fetcher = oauthFetch,
): Promise<Response> {
  return tokenRequest(
    {
      grant_type: "authorization_code",
      code: issued.code,
      code_verifier: issued.verifier,
      redirect_uri: REDIRECT,
      client_id: client.client_id,
      resource: RESOURCE,
      ...extra,
    },
    via,
  );
}

/** The whole flow: a client, a grant with these scopes, and its tokens. */
export async function connectWithOAuth(
  scopes: readonly Scope[] = SCOPES,
  token = ACME_TOKEN,
): Promise<{ client: RegisteredClient; tokens: TokenSet }> {
  const client = await registerClient();
  const issued = await authorizeCode(client, scopes, token);
  const response = await exchangeCode(client, issued);
  expect(response.status, await response.clone().text()).toBe(200);
  return { client, tokens: await response.json() };
}

/** The tool names tools/list shows to this bearer token. */
export async function listedTools(token: string): Promise<string[]> {
  const response = await postMcp(rpc(2, "tools/list"), { token });
  expect(response.status, await response.clone().text()).toBe(200);
  const body = (await response.json()) as JsonRpcMessage;
  return ((body.result?.tools ?? []) as Array<{ name: string }>).map((tool) => tool.name);
}

/** Calls one tool with a raw request, so the HTTP status of a refusal is visible. */
export function callToolRaw(token: string, name: string, args: Record<string, unknown> = {}): Promise<Response> {
  return postMcp(rpc(3, "tools/call", { name, arguments: args }), { token });
}

/**
 * A KV namespace that honours expirationTtl against Date.now, so a test that
 * moves the clock sees records expire as Cloudflare's KV would (miniflare
 * expires them by its own clock, which a test cannot move).
 */
export function expiringKv(kv: KVNamespace): KVNamespace {
  const expiresAt = new Map<string, number>();
  return new Proxy(kv, {
    get(target, property) {
      if (property === "put") {
        return (key: string, value: string, options?: KVNamespacePutOptions) => {
          if (options?.expirationTtl !== undefined) expiresAt.set(key, Date.now() + options.expirationTtl * 1000);
          else expiresAt.delete(key);
          return target.put(key, value, options);
        };
      }
      if (property === "get") {
        return (key: string, options?: unknown) => {
          const at = expiresAt.get(key);
          if (at !== undefined && Date.now() >= at) return Promise.resolve(null);
          return (target.get as (key: string, options?: unknown) => Promise<unknown>)(key, options);
        };
      }
      const value: unknown = Reflect.get(target, property);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
