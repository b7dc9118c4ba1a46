import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { fetchWithEnv } from "../helpers/app-with-env";
import { MCP_URL } from "../helpers/mcp-client";
import { type JsonRpcMessage, mcpHeaders, rpc } from "../helpers/mcp-raw";
import {
  authorizeCode,
  callToolRaw,
  connectWithOAuth,
  exchangeCode,
  expiringKv,
  type Fetcher,
  listedTools,
  ORIGIN,
  oauthFetch,
  REDIRECT,
  RESOURCE,
  registerClient,
  type TokenSet,
  tokenRequest,
} from "../helpers/oauth";
import { ACME_TOKEN } from "../helpers/tokens";

// Tokens from the consent page, at /mcp: bound to the /mcp resource, carrying
// {account, operator, scopes}, refreshable, revocable, and refused clearly
// when anything about them is wrong.

const ORDERS_READ_TOOLS = [
  "get_order_status",
  "list_order_exceptions",
  "get_order_details",
  "get_order_audit_log",
  "get_proposal",
  "wait_for_approval",
];

afterEach(() => {
  vi.restoreAllMocks();
});

/** Moves the clock the OAuth library reads forward. */
function later(seconds: number): void {
  const now = Date.now();
  vi.spyOn(Date, "now").mockReturnValue(now + seconds * 1000);
}

async function oauthError(response: Response): Promise<{ error: string; error_description: string }> {
  expect(response.headers.get("content-type")).toMatch(/^application\/json/);
  return response.json();
}

describe("the grant at /mcp", () => {
  it("tokens name the /mcp resource and the granted scopes", async () => {
    const { tokens } = await connectWithOAuth(["orders:read"]);
    expect(tokens.resource).toBe(RESOURCE);
    expect(tokens.scope).toBe("orders:read");
    expect(tokens.refresh_token).toBeTruthy();
    expect(tokens.expires_in).toBe(3600);
  });

  it("tools/list shows exactly the granted tools", async () => {
    const { tokens } = await connectWithOAuth(["orders:read"]);
    expect(await listedTools(tokens.access_token)).toEqual(ORDERS_READ_TOOLS);
    const both = await connectWithOAuth(["traffic:read", "orders:read"]);
    expect(await listedTools(both.tokens.access_token)).toEqual([
      "check_target",
      "preview_order",
      "get_traffic_run",
      "compare_traffic_runs",
      "get_capacity_search",
      ...ORDERS_READ_TOOLS,
    ]);
  });

  it("a granted tool acts for the account of the operator who signed in", async () => {
    const { tokens } = await connectWithOAuth(["orders:read"]);
    const response = await callToolRaw(tokens.access_token, "get_order_status", { order_id: "ORD-1008" });
    const body = (await response.json()) as JsonRpcMessage;
    expect(body.result?.isError ?? false).toBe(false);
    expect((body.result?.structuredContent as { order_id?: string } | undefined)?.order_id).toBe("ORD-1008");
  });

  it("a tool outside the grant: 403 insufficient_scope naming the scope, and nothing runs", async () => {
    const { tokens } = await connectWithOAuth(["orders:read"]);
    const response = await callToolRaw(tokens.access_token, "propose_resolution", { order_id: "ORD-1008" });
    expect(response.status).toBe(403);
    expect(response.headers.get("www-authenticate")).toBe(
      `Bearer realm="order-ops-edge", resource_metadata="${ORIGIN}/.well-known/oauth-protected-resource/mcp", error="insufficient_scope", scope="orders:read orders:propose"`,
    );
    expect(await response.json()).toEqual({
      code: "forbidden",
      message:
        "propose_resolution needs the orders:propose scope, and this credential holds orders:read; connect again and allow orders:propose, or use a token that has it",
    });
  });

  it("an OAuth token is for /mcp only: /api refuses it", async () => {
    const { tokens } = await connectWithOAuth(["traffic:send"]);
    const response = await oauthFetch(`${ORIGIN}/api/orders/ORD-1008`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(response.status).toBe(401);
  });

  it("the grant dies with the token that signed it: rotate that MCP token and the OAuth token is refused", async () => {
    const { tokens } = await connectWithOAuth(["orders:read"]);
    const post = (vars: Record<string, string>) =>
      fetchWithEnv(
        new Request(MCP_URL, {
          method: "POST",
          headers: mcpHeaders({ token: tokens.access_token }),
          body: JSON.stringify(rpc(1, "tools/list")),
        }),
        vars,
      );
    const sameOperator = { account: "acme", operator: "Ada Ops (acme, local dev)" };
    expect((await post({ MCP_TOKENS: JSON.stringify({ [ACME_TOKEN]: sameOperator }) })).status).toBe(200);
    const rotated = await post({ MCP_TOKENS: JSON.stringify({ "acme-rotated-token": sameOperator }) });
    expect(rotated.status).toBe(401);
    expect(rotated.headers.get("www-authenticate")).toContain('error="invalid_token"');
  });

  it("narrowing the signing token narrows the grant too", async () => {
    const { tokens } = await connectWithOAuth(["traffic:read", "orders:read"]);
    const narrowed = JSON.stringify({
      [ACME_TOKEN]: { account: "acme", operator: "Ada Ops (acme, local dev)", scopes: ["orders:read"] },
    });
    const response = await fetchWithEnv(
      new Request(MCP_URL, {
        method: "POST",
        headers: mcpHeaders({ token: tokens.access_token }),
        body: JSON.stringify(rpc(1, "tools/list")),
      }),
      { MCP_TOKENS: narrowed },
    );
    const body = (await response.json()) as JsonRpcMessage;
    expect(((body.result?.tools ?? []) as Array<{ name: string }>).map((t) => t.name)).toEqual(ORDERS_READ_TOOLS);
  });
});

describe("refresh and expiry", () => {
  it("an expired access token is refused; the refresh token gets a new one, and rotates", async () => {
    const { client, tokens } = await connectWithOAuth(["orders:read"]);
    later(3601);
    const expired = await callToolRaw(tokens.access_token, "list_order_exceptions");
    expect(expired.status).toBe(401);
    expect(expired.headers.get("www-authenticate")).toContain('error="invalid_token"');
    const refreshed = await tokenRequest({
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token,
      client_id: client.client_id,
    });
    expect(refreshed.status).toBe(200);
    const next = (await refreshed.json()) as TokenSet;
    expect(next.refresh_token).not.toBe(tokens.refresh_token);
    expect(next.scope).toBe("orders:read");
    expect(await listedTools(next.access_token)).toEqual(ORDERS_READ_TOOLS);
  });
});

describe("revocation", () => {
  it("the client revokes its token (RFC 7009): /mcp refuses it at once", async () => {
    const { client, tokens } = await connectWithOAuth(["orders:read"]);
    const revoked = await tokenRequest({
      token: tokens.access_token,
      token_type_hint: "access_token",
      client_id: client.client_id,
    });
    expect(revoked.status).toBe(200);
    expect((await callToolRaw(tokens.access_token, "list_order_exceptions")).status).toBe(401);
  });

  it("the operator lists and revokes the grant with their MCP token; its access and refresh tokens stop working", async () => {
    const { client, tokens } = await connectWithOAuth(["orders:read", "traffic:read"]);
    const auth = { authorization: `Bearer ${ACME_TOKEN}` };
    const list = (await (await oauthFetch(`${ORIGIN}/oauth/grants`, { headers: auth })).json()) as {
      grants: Array<{
        grant_id: string;
        client_id: string;
        client_name: string;
        scopes: string[];
        redirect_uri: string;
      }>;
    };
    const grant = list.grants.find((g) => g.client_id === client.client_id);
    expect(grant).toMatchObject({
      client_name: "Test Client",
      scopes: ["traffic:read", "orders:read"],
      redirect_uri: REDIRECT,
    });
    const removed = await oauthFetch(`${ORIGIN}/oauth/grants/${grant?.grant_id}`, { method: "DELETE", headers: auth });
    expect(removed.status).toBe(200);
    expect((await callToolRaw(tokens.access_token, "list_order_exceptions")).status).toBe(401);
    const refresh = await tokenRequest({
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token,
      client_id: client.client_id,
    });
    expect(refresh.status).toBe(400);
    expect((await oauthError(refresh)).error).toBe("invalid_grant");
  });

  it("another operator's grant is not found, and stays", async () => {
    const { client, tokens } = await connectWithOAuth(["orders:read"]);
    const mine = (await (
      await oauthFetch(`${ORIGIN}/oauth/grants`, { headers: { authorization: `Bearer ${ACME_TOKEN}` } })
    ).json()) as {
      grants: Array<{ grant_id: string; client_id: string }>;
    };
    const grantId = mine.grants.find((g) => g.client_id === client.client_id)?.grant_id;
    const theirs = await oauthFetch(`${ORIGIN}/oauth/grants/${grantId}`, {
      method: "DELETE",
      headers: { authorization: "Bearer globex-dev-token" },
    });
    expect(theirs.status).toBe(404);
    expect((await callToolRaw(tokens.access_token, "list_order_exceptions")).status).toBe(200);
  });

  it("grants are managed with an MCP token only", async () => {
    const { tokens } = await connectWithOAuth(["orders:read"]);
    expect((await oauthFetch(`${ORIGIN}/oauth/grants`)).status).toBe(401);
    expect(
      (await oauthFetch(`${ORIGIN}/oauth/grants`, { headers: { authorization: `Bearer ${tokens.access_token}` } }))
        .status,
    ).toBe(401);
  });
});

describe("bad input at the token endpoint: a clear OAuth error, and nothing issued", () => {
  it("a wrong PKCE verifier", async () => {
    const client = await registerClient();
    const issued = await authorizeCode(client, ["orders:read"]);
    const response = await exchangeCode(client, issued, { code_verifier: "x".repeat(43) });
    expect(response.status).toBe(400);
    expect(await oauthError(response)).toEqual({
      error: "invalid_grant",
      error_description: "Invalid PKCE code_verifier",
    });
  });

  it("a reused code: refused, and the tokens the first use issued are revoked", async () => {
    const client = await registerClient();
    const issued = await authorizeCode(client, ["orders:read"]);
    const first = await exchangeCode(client, issued);
    expect(first.status).toBe(200);
    const tokens = (await first.json()) as TokenSet;
    const again = await exchangeCode(client, issued);
    expect(again.status).toBe(400);
    expect(await oauthError(again)).toEqual({
      error: "invalid_grant",
      error_description: "Authorization code already used",
    });
    expect((await callToolRaw(tokens.access_token, "list_order_exceptions")).status).toBe(401);
  });

  it("an expired code (codes live 10 minutes)", async () => {
    const kv = expiringKv(env.OAUTH_KV);
    const via: Fetcher = (url, init) => fetchWithEnv(new Request(url, init), { OAUTH_KV: kv });
    const client = await registerClient({}, via);
    const issued = await authorizeCode(client, ["orders:read"], ACME_TOKEN, via);
    later(601);
    const response = await exchangeCode(client, issued, {}, via);
    expect(response.status).toBe(400);
    expect(await oauthError(response)).toEqual({
      error: "invalid_grant",
      error_description: "Grant not found or authorization code expired",
    });
  });

  it("a foreign resource", async () => {
    const client = await registerClient();
    const issued = await authorizeCode(client, ["orders:read"]);
    const response = await exchangeCode(client, issued, { resource: "https://evil.example/mcp" });
    expect(response.status).toBe(400);
    expect(await oauthError(response)).toEqual({
      error: "invalid_target",
      error_description: "The resource parameter must name exactly one configured protected resource",
    });
  });

  it("a redirect URI other than the one the code was issued for", async () => {
    const client = await registerClient({ redirect_uris: [REDIRECT, "http://127.0.0.1:9999/other"] });
    const issued = await authorizeCode(client, ["orders:read"]);
    const response = await exchangeCode(client, issued, { redirect_uri: "http://127.0.0.1:9999/other" });
    expect(response.status).toBe(400);
    expect((await oauthError(response)).error).toBe("invalid_grant");
  });
});
