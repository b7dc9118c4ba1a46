import { afterEach, describe, expect, it, vi } from "vitest";
import { textOf } from "../helpers/approval-pages";
import { workerFetch } from "../helpers/mcp-client";
import { authorizeUrl, ORIGIN, pkcePair } from "../helpers/oauth";

// A Client ID Metadata Document client names a URL as its client_id, and the
// OAuth library fetches it. A client id on this machine or a private network
// is refused before any fetch, at /authorize and at /oauth/token, whatever
// the platform's own guard does; a public one is fetched as before.

const REFUSED = [
  "https://127.0.0.1:18999/client.json",
  "https://localhost:18999/client.json",
  "https://0x7f000001:18999/c",
  "https://2130706433:18999/c",
  "https://[::1]:18999/c",
  "https://169.254.169.254/latest/meta-data",
];

/** Every outbound fetch the Worker makes from here on; none reaches the network. */
function watchFetches(): string[] {
  const urls: string[] = [];
  vi.spyOn(globalThis, "fetch").mockImplementation((input) => {
    urls.push(input instanceof Request ? input.url : String(input));
    return Promise.resolve(new Response("not found", { status: 404 }));
  });
  return urls;
}

afterEach(() => {
  vi.restoreAllMocks();
});

async function openConsent(clientId: string): Promise<Response> {
  const { challenge } = await pkcePair();
  return workerFetch(authorizeUrl({ clientId, challenge, scope: "orders:read" }), { redirect: "manual" });
}

describe("/authorize", () => {
  it.each(REFUSED)("%s: a page saying why, and nothing fetched", async (clientId) => {
    const fetched = watchFetches();
    const response = await openConsent(clientId);
    expect(response.status).toBe(400);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    const text = textOf(await response.text());
    expect(text).toContain("This app could not be verified");
    expect(text).toContain(`client_id ${clientId} cannot be fetched as a Client ID Metadata Document`);
    expect(fetched).toEqual([]);
  });

  it("a public client id is still fetched (and here, answered 404, cannot be verified)", async () => {
    const fetched = watchFetches();
    const response = await openConsent("https://client.example.com/oauth/metadata.json");
    expect(textOf(await response.text())).toContain("This app could not be verified");
    expect(fetched).toEqual(["https://client.example.com/oauth/metadata.json"]);
  });
});

describe("/oauth/token", () => {
  function tokenPost(fields: Record<string, string>, headers: Record<string, string> = {}): Promise<Response> {
    return workerFetch(`${ORIGIN}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
      body: new URLSearchParams(fields).toString(),
    });
  }

  it.each(REFUSED)("client_id %s: invalid_client, and nothing fetched", async (clientId) => {
    const fetched = watchFetches();
    const response = await tokenPost({
      grant_type: "authorization_code",
      code: "a:b:c",
      code_verifier: "v".repeat(43),
      client_id: clientId,
    });
    expect(response.status).toBe(401);
    const body = (await response.json()) as { error: string; error_description: string };
    expect(body.error).toBe("invalid_client");
    expect(body.error_description).toContain("cannot be fetched as a Client ID Metadata Document");
    expect(fetched).toEqual([]);
  });

  it("the same client id in HTTP Basic authentication or as a client assertion's issuer is refused too", async () => {
    const fetched = watchFetches();
    const clientId = "https://127.0.0.1:18999/client.json";
    const basic = await tokenPost(
      { grant_type: "refresh_token", refresh_token: "a:b:c" },
      { authorization: `Basic ${btoa(`${encodeURIComponent(clientId)}:secret`)}` },
    );
    expect(basic.status).toBe(401);
    const claims = btoa(JSON.stringify({ iss: clientId, sub: clientId })).replace(/=+$/, "");
    const assertion = await tokenPost({
      grant_type: "refresh_token",
      refresh_token: "a:b:c",
      client_assertion_type: "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
      client_assertion: `eyJhbGciOiJFUzI1NiJ9.${claims}.c2ln`,
    });
    expect(assertion.status).toBe(401);
    expect(fetched).toEqual([]);
  });

  it("a public document whose jwks_uri is on this machine: refused before the keys are fetched", async () => {
    const documentUrl = "https://keys-client.example.com/oauth/metadata.json";
    const fetched: string[] = [];
    vi.spyOn(globalThis, "fetch").mockImplementation((input) => {
      const url = input instanceof Request ? input.url : String(input);
      fetched.push(url);
      if (url !== documentUrl) return Promise.resolve(new Response("{}", { status: 404 }));
      const document = {
        client_id: documentUrl,
        client_name: "Keys Client",
        redirect_uris: ["https://keys-client.example.com/callback"],
        token_endpoint_auth_method: "private_key_jwt",
        jwks_uri: "https://127.0.0.1:18999/jwks.json",
      };
      return Promise.resolve(Response.json(document, { headers: { "cache-control": "no-store" } }));
    });
    const claims = btoa(JSON.stringify({ iss: documentUrl, sub: documentUrl })).replace(/=+$/, "");
    const response = await tokenPost({
      grant_type: "refresh_token",
      refresh_token: "a:b:c",
      client_id: documentUrl,
      client_assertion_type: "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
      client_assertion: `eyJhbGciOiJFUzI1NiJ9.${claims}.c2ln`,
    });
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error_description: string }).error_description).toBe(
      `the jwks_uri of client ${documentUrl} cannot be fetched: 127.0.0.1 is not a public address`,
    );
    expect(fetched).toEqual([documentUrl]);
  });
});
