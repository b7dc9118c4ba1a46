import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../scripts/lib/dev-server.ts";
import { launchBrowser } from "./browser.ts";

// The claude.ai / ChatGPT path, end to end: the official SDK client's OAuth
// support discovers the metadata from a 401, registers itself, and sends a
// person through the consent page in a real browser; then it works within
// the scopes the person chose, refreshes a token the server no longer takes on its own, and is
// refused once the grant is revoked.

const ACCESS_TOKEN_SECONDS = 120; // any lifetime: the test never waits for it

/** A client's keychain: what a real MCP host keeps between runs. */
class RecordingProvider implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens[] = [];
  verifier = "";
  authorizationUrls: URL[] = [];

  private readonly callback: string;

  constructor(callback: string) {
    this.callback = callback;
  }

  get redirectUrl(): string {
    return this.callback;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "E2E SDK Client",
      redirect_uris: [this.callback],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved.at(-1);
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved.push(tokens);
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrls.push(url);
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  /** The SDK calls this when the server says a grant is gone (invalid_grant), then starts a fresh sign-in. */
  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery") {
    if (scope === "all" || scope === "tokens") this.saved = [];
    if (scope === "all" || scope === "client") this.client = undefined;
  }
}

/** The client's loopback redirect target: resolves with each callback URL it receives. */
function callbackServer(): Promise<{ url: string; next: () => Promise<URL>; server: Server }> {
  let deliver: ((url: URL) => void) | undefined;
  const server = createServer((request, response) => {
    const address = server.address() as AddressInfo;
    deliver?.(new URL(request.url ?? "/", `http://127.0.0.1:${address.port}`));
    response.writeHead(200, { "content-type": "text/html" }).end("<p>Connected; you can close this window.</p>");
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}/callback`,
        server,
        next: () => new Promise<URL>((arrive) => (deliver = arrive)),
      });
    });
  });
}

let dev: DevServer;
let browser: Browser;
let callbacks: Awaited<ReturnType<typeof callbackServer>>;

beforeAll(async () => {
  dev = await startDevServer({ quiet: true, vars: { OAUTH_ACCESS_TOKEN_TTL_SECONDS: String(ACCESS_TOKEN_SECONDS) } });
  browser = await launchBrowser();
  callbacks = await callbackServer();
});

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => callbacks?.server.close(resolve));
  await dev?.stop();
});

function transport(provider: OAuthClientProvider): StreamableHTTPClientTransport {
  return new StreamableHTTPClientTransport(new URL(`${dev.url}/mcp`), { authProvider: provider });
}

it("discovers, registers, consents in the browser, lists the granted tools, refreshes, and is refused after revocation", async () => {
  const provider = new RecordingProvider(callbacks.url);

  // 1. No token yet: the 401 starts discovery and dynamic registration, then sends the person to sign in.
  const first = transport(provider);
  await expect(new Client({ name: "e2e", version: "1.0.0" }).connect(first)).rejects.toThrow(/Unauthorized/);
  expect(provider.client?.client_id).toBeTruthy();
  const authorizationUrl = provider.authorizationUrls.at(-1);
  expect(authorizationUrl?.origin).toBe(dev.url);
  expect(authorizationUrl?.pathname).toBe("/authorize");
  expect(authorizationUrl?.searchParams.get("code_challenge_method")).toBe("S256");
  expect(authorizationUrl?.searchParams.get("resource")).toBe(`${dev.url}/mcp`);
  // The client asks for what the resource metadata lists; the person narrows it.
  expect(authorizationUrl?.searchParams.get("scope")).toBe("traffic:read traffic:send orders:read orders:propose");

  // 2. The consent page in a real browser: it names the client and where access goes; the person keeps two scopes.
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(String(authorizationUrl));
  const text = await page.locator("main").innerText();
  expect(text).toContain("Connect E2E SDK Client to Order Ops Edge?");
  expect(text).toContain(callbacks.url);
  await page.getByRole("checkbox", { name: /traffic:send/ }).uncheck();
  await page.getByRole("checkbox", { name: /orders:propose/ }).uncheck();
  await page.getByLabel("Your MCP token").fill("acme-dev-token");
  const arrived = callbacks.next();
  await page.getByRole("button", { name: "Allow" }).click();
  const callback = await arrived;
  await context.close();
  expect(callback.searchParams.get("state")).toBeNull(); // this provider sends no state
  expect(callback.searchParams.get("iss")).toBe(dev.url);
  const code = callback.searchParams.get("code");
  expect(code).toBeTruthy();

  // 3. The SDK exchanges the code (with its PKCE verifier) and connects.
  await first.finishAuth(code ?? "");
  const granted = provider.tokens();
  expect(granted?.scope).toBe("traffic:read orders:read");
  const client = new Client({ name: "e2e", version: "1.0.0" });
  await client.connect(transport(provider));
  const names = (await client.listTools()).tools.map((tool) => tool.name);
  expect(names).toEqual([
    "check_target",
    "preview_order",
    "get_traffic_run",
    "compare_traffic_runs",
    "get_capacity_search",
    "get_order_status",
    "list_order_exceptions",
    "get_order_details",
    "get_order_audit_log",
    "get_proposal",
    "wait_for_approval",
  ]);
  const status = await client.callTool({ name: "get_order_status", arguments: { order_id: "ORD-1008" } });
  expect((status.structuredContent as { order_id?: string } | undefined)?.order_id).toBe("ORD-1008");
  // A tool outside the grant is refused at the HTTP level, not run.
  await expect(client.callTool({ name: "send_orders", arguments: { count: 1 } })).rejects.toThrow(/403/);

  // 4. The server gives tokens the configured lifetime; once it no longer takes one (as after that lifetime) it
  // says 401, and the SDK refreshes on its own. The provider library checks the expiry; waiting a real minute
  // for it here would only make the suite slow and load-sensitive, so the token is spoilt instead.
  expect(granted?.expires_in).toBe(ACCESS_TOKEN_SECONDS);
  // The latest tokens: the refused call above may have refreshed, and a refresh token is used only once.
  const current = provider.tokens() as OAuthTokens;
  const [user, grantId] = current.access_token.split(":");
  provider.saveTokens({ ...current, access_token: `${user}:${grantId}:no-longer-valid` });
  const tokensBefore = provider.saved.length;
  const again = await client.callTool({ name: "list_order_exceptions", arguments: {} });
  expect(again.isError ?? false).toBe(false);
  expect(provider.saved.length).toBe(tokensBefore + 1);
  expect(provider.tokens()?.access_token).not.toBe(granted?.access_token);
  expect(provider.tokens()?.refresh_token).not.toBe(granted?.refresh_token);

  // 5. The operator revokes the grant: the next call cannot refresh, and the client is sent to sign in again.
  const grants = (await (
    await fetch(`${dev.url}/oauth/grants`, { headers: { authorization: "Bearer acme-dev-token" } })
  ).json()) as {
    grants: Array<{ grant_id: string; client_id: string }>;
  };
  const grant = grants.grants.find((g) => g.client_id === provider.client?.client_id);
  expect(grant).toBeDefined();
  const revoked = await fetch(`${dev.url}/oauth/grants/${grant?.grant_id}`, {
    method: "DELETE",
    headers: { authorization: "Bearer acme-dev-token" },
  });
  expect(revoked.status).toBe(200);
  const signInsBefore = provider.authorizationUrls.length;
  await expect(client.callTool({ name: "list_order_exceptions", arguments: {} })).rejects.toThrow(/Unauthorized/);
  expect(provider.authorizationUrls.length).toBe(signInsBefore + 1);
  await client.close();
}, 240_000);
