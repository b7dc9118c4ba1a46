import { describe, expect, it } from "vitest";
import { fetchWithEnv } from "../helpers/app-with-env";
import { formPostedFrom } from "../helpers/approval-pages";
import {
  authorizeUrl,
  ORIGIN,
  oauthFetch,
  openConsent,
  pkcePair,
  REDIRECT,
  registerClient,
  submitConsent,
} from "../helpers/oauth";
import { ACME_APPROVER_TOKEN } from "../helpers/tokens";

/** A DNS-rebound name for this machine: the browser treats its pages as their own origin. */
const REBOUND = "http://attacker.example:8787";

// The consent page: it names the client, where access goes and what it asks
// for; a person signs in with an operator credential and chooses scopes.
// Protected like the approval app.

async function freshPage(scope = "orders:read traffic:read", metadata: Record<string, unknown> = {}) {
  const client = await registerClient(metadata);
  const { challenge } = await pkcePair();
  return { client, page: await openConsent(authorizeUrl({ clientId: client.client_id, challenge, scope })) };
}

function checkedScopes(html: string): string[] {
  return [...html.matchAll(/name="scope" value="([^"]+)" checked/g)].map((m) => m[1] ?? "");
}

describe("what the page shows", () => {
  it("names the client, the redirect URI, and offers every scope with the requested ones ticked", async () => {
    const { page } = await freshPage();
    expect(page.html).toContain("Connect Test Client to Order Ops Edge?");
    expect(page.html).toContain("127.0.0.1");
    expect(page.html).toContain(REDIRECT);
    expect(page.html).toContain("This app registered itself, so its name is not verified.");
    expect(page.html).toContain("an app on this computer");
    for (const scope of ["traffic:read", "traffic:send", "orders:read", "orders:propose"])
      expect(page.html).toContain(`value="${scope}"`);
    expect(checkedScopes(page.html)).toEqual(["traffic:read", "orders:read"]);
    expect(page.html).toContain("No choice lets it approve a proposal");
  });

  it("says what each scope lets the app do, including the demo tool that orders:propose unlocks", async () => {
    const { page } = await freshPage();
    expect(page.html).toContain("propose fixes, and apply a fix after a person approved it in the approval app");
    expect(page.html).toContain("on demo servers, also create a simulated stuck order (simulate_new_failure)");
  });

  it("ticks every scope when the client asked for none of ours", async () => {
    const { page } = await freshPage("offline_access");
    expect(checkedScopes(page.html)).toEqual(["traffic:read", "traffic:send", "orders:read", "orders:propose"]);
  });

  it("escapes what the client chose to call itself", async () => {
    const { page } = await freshPage("orders:read", {
      client_name: '<script>alert("x")</script><img src=x onerror=alert(1)>',
    });
    expect(page.html).not.toContain("<script>alert");
    expect(page.html).not.toContain("<img src=x");
    expect(page.html).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;");
  });

  it("cannot be framed, runs no script, and posts only to itself or the client's redirect origin", async () => {
    const { page } = await freshPage();
    const policy = page.response.headers.get("content-security-policy") ?? "";
    expect(policy).toBe(
      "default-src 'none'; style-src 'unsafe-inline'; form-action 'self' http://127.0.0.1:9999; frame-ancestors 'none'; base-uri 'none'",
    );
    expect(page.response.headers.get("x-frame-options")).toBe("DENY");
    expect(page.response.headers.get("cache-control")).toBe("no-store");
    // The one-time handle is bound to this browser by a __Host- cookie.
    expect(page.cookie).toMatch(/^__Host-oauth-consent-/);
  });
});

describe("requests that never reach the page", () => {
  it("a redirect URI the client did not register: a page here, never a redirect", async () => {
    const client = await registerClient();
    const { challenge } = await pkcePair();
    const response = await oauthFetch(
      authorizeUrl({ clientId: client.client_id, challenge, redirectUri: "http://127.0.0.1:9999/elsewhere" }),
    );
    expect(response.status).toBe(400);
    expect(response.headers.get("location")).toBeNull();
    expect(await response.text()).toContain("invalid_request: Invalid redirect URI");
  });

  it("an unknown client: a page here", async () => {
    const response = await oauthFetch(authorizeUrl({ clientId: "no-such-client", challenge: "x".repeat(43) }));
    expect(response.status).toBe(400);
    expect(await response.text()).toContain("invalid_request: Invalid client_id");
  });

  it("a foreign resource: back to the client with invalid_target", async () => {
    const client = await registerClient();
    const { challenge } = await pkcePair();
    const response = await oauthFetch(
      authorizeUrl({ clientId: client.client_id, challenge, resource: "https://evil.example/mcp" }),
    );
    expect(response.status).toBe(302);
    const location = new URL(response.headers.get("location") ?? "");
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
    expect(location.searchParams.get("error")).toBe("invalid_target");
    expect(location.searchParams.get("state")).toBe("state-123");
  });

  it("no PKCE from a public client: back to the client with invalid_request", async () => {
    const client = await registerClient();
    const response = await oauthFetch(authorizeUrl({ clientId: client.client_id }));
    expect(response.status).toBe(302);
    expect(new URL(response.headers.get("location") ?? "").searchParams.get("error")).toBe("invalid_request");
  });

  it("no PKCE from a confidential client either: this server requires it of everyone", async () => {
    const client = await registerClient({ token_endpoint_auth_method: "client_secret_basic" });
    expect(client.client_secret).toBeTruthy();
    const response = await oauthFetch(authorizeUrl({ clientId: client.client_id }));
    expect(response.status).toBe(302);
    const location = new URL(response.headers.get("location") ?? "");
    expect(location.searchParams.get("error")).toBe("invalid_request");
    expect(location.searchParams.get("error_description")).toBe("code_challenge (PKCE with S256) is required");
  });
});

describe("signing in and choosing", () => {
  it("a wrong token shows the page again (401) with the same handle, which still works afterwards", async () => {
    const { page } = await freshPage();
    const wrong = await submitConsent(page, { token: "not-a-token-at-all" });
    expect(wrong.status).toBe(401);
    const html = await wrong.text();
    expect(html).toContain("that is not a valid MCP token");
    expect(html).toContain(`value="${page.handle}"`);
    const right = await submitConsent(page);
    expect(right.status).toBe(302);
    expect(new URL(right.headers.get("location") ?? "").searchParams.get("code")).toBeTruthy();
  });

  it("an approver token cannot sign in here", async () => {
    const { page } = await freshPage();
    const response = await submitConsent(page, { token: ACME_APPROVER_TOKEN });
    expect(response.status).toBe(401);
    expect(await response.text()).toContain("approver tokens cannot sign in here");
  });

  it("no scope ticked: 400, nothing granted", async () => {
    const { page } = await freshPage();
    const response = await submitConsent(page, { scopes: [] });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain("choose at least one thing the app may do");
  });

  it("a scope the signing token does not hold cannot be granted", async () => {
    const narrow = JSON.stringify({
      "reader-token-123": { account: "acme", operator: "Reader", scopes: ["orders:read"] },
    });
    const client = await registerClient();
    const { challenge } = await pkcePair();
    const url = authorizeUrl({ clientId: client.client_id, challenge, scope: "orders:read" });
    const vars = { MCP_TOKENS: narrow };
    const pageResponse = await fetchWithEnv(new Request(url), vars);
    const html = await pageResponse.text();
    const handle = /name="handle" value="([^"]+)"/.exec(html)?.[1] ?? "";
    const cookie = pageResponse.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    const form = new URLSearchParams({ handle, decision: "approve", token: "reader-token-123" });
    form.append("scope", "orders:read");
    form.append("scope", "orders:propose");
    const response = await fetchWithEnv(
      new Request(url, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", cookie },
        body: form.toString(),
      }),
      vars,
    );
    expect(response.status).toBe(403);
    expect(await response.text()).toContain(
      "your token does not hold orders:propose, so you cannot grant it; it holds orders:read",
    );
  });

  it("Deny sends the browser back to the client with access_denied and its state", async () => {
    const { page } = await freshPage();
    const response = await submitConsent(page, { decision: "deny", token: "" });
    expect(response.status).toBe(302);
    const location = new URL(response.headers.get("location") ?? "");
    expect(location.searchParams.get("error")).toBe("access_denied");
    expect(location.searchParams.get("state")).toBe("state-123");
  });

  it("a used handle cannot be used again", async () => {
    const { page } = await freshPage();
    expect((await submitConsent(page)).status).toBe(302);
    const again = await submitConsent(page);
    expect(again.status).toBe(400);
    expect(await again.text()).toContain("This page was already used");
  });

  it("the handle without this browser's cookie is refused (another browser, or a forged post)", async () => {
    const { page } = await freshPage();
    const response = await submitConsent(page, { cookie: "" });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain("opened in another browser");
  });

  it("a post from another site is refused before anything is read (CSRF)", async () => {
    const { page } = await freshPage();
    const response = await submitConsent(page, { headers: formPostedFrom("https://evil.example", "cross-site") });
    expect(response.status).toBe(403);
    expect(await response.text()).toContain("this form did not come from the consent page");
    // The handle is still unused: the real page can go on.
    expect((await submitConsent(page)).status).toBe(302);
  });

  it("a post on a rebound host name from that host's own page is refused, though the browser calls it same-origin", async () => {
    const { page } = await freshPage();
    const rebound = { ...page, url: page.url.replace(ORIGIN, REBOUND) };
    const response = await submitConsent(rebound, { headers: formPostedFrom(REBOUND, "same-origin") });
    expect(response.status).toBe(403);
    expect(await response.text()).toContain("host attacker.example:8787 is not one this site answers to");
    expect(response.headers.get("location")).toBeNull();
    // Nothing was granted and the handle is unused: the real page can go on.
    expect((await submitConsent(page, { headers: formPostedFrom(ORIGIN, "same-origin") })).status).toBe(302);
  });

  it("the consent page itself is not served on a rebound host name", async () => {
    const client = await registerClient();
    const { challenge } = await pkcePair();
    const response = await oauthFetch(authorizeUrl({ clientId: client.client_id, challenge }).replace(ORIGIN, REBOUND));
    expect(response.status).toBe(403);
    expect(response.headers.getSetCookie()).toEqual([]);
  });
});
