import { describe, expect, it } from "vitest";
import { workerFetch } from "../helpers/mcp-client";
import { postMcp, rpc } from "../helpers/mcp-raw";
import {
  authorizeCode,
  exchangeCode,
  listedTools,
  type RegisteredClient,
  registerClient,
  type TokenSet,
  tokenRequest,
} from "../helpers/oauth";
import { ACME_TOKEN } from "../helpers/tokens";

// Refresh tokens rotate, and a rotated one presented again revokes the whole
// grant (OAuth 2.1, RFC 9700): whoever holds a leaked old token loses access
// with the real client, instead of keeping it and locking the client out.
// An authorization code takes a few wrong PKCE verifiers, then is used up.

async function connect(): Promise<{ client: RegisteredClient; tokens: TokenSet }> {
  const client = await registerClient();
  const response = await exchangeCode(client, await authorizeCode(client, ["orders:read"]));
  expect(response.status).toBe(200);
  return { client, tokens: await response.json() };
}

function refresh(client: RegisteredClient, refreshToken: string): Promise<Response> {
  return tokenRequest({ grant_type: "refresh_token", refresh_token: refreshToken, client_id: client.client_id });
}

async function refreshed(client: RegisteredClient, refreshToken: string): Promise<TokenSet> {
  const response = await refresh(client, refreshToken);
  expect(response.status, await response.clone().text()).toBe(200);
  return response.json();
}

async function grantListed(clientId: string): Promise<boolean> {
  const response = await workerFetch("http://localhost/oauth/grants", {
    headers: { authorization: `Bearer ${ACME_TOKEN}` },
  });
  const { grants } = (await response.json()) as { grants: Array<{ client_id: string }> };
  return grants.some((g) => g.client_id === clientId);
}

async function expectRevoked(client: RegisteredClient, tokens: TokenSet): Promise<void> {
  const again = await refresh(client, tokens.refresh_token);
  expect(again.status).toBe(400);
  expect(((await again.json()) as { error: string }).error).toBe("invalid_grant");
  expect((await postMcp(rpc(1, "tools/list"), { token: tokens.access_token })).status).toBe(401);
  expect(await grantListed(client.client_id)).toBe(false);
}

describe("refresh token rotation", () => {
  it("each refresh token works once: a chain of refreshes goes on", async () => {
    const { client, tokens } = await connect();
    let current = tokens;
    for (let i = 0; i < 3; i++) current = await refreshed(client, current.refresh_token);
    expect(await listedTools(current.access_token)).toContain("get_order_status");
  });

  it("RT0 presented again right after RT0 -> RT1 (a retry, within the grace window): the same pair again, and the grant goes on", async () => {
    const { client, tokens: first } = await connect();
    const second = await refreshed(client, first.refresh_token);
    const retry = await refreshed(client, first.refresh_token);
    expect(retry).toEqual(second);
    expect(await listedTools((await refreshed(client, second.refresh_token)).access_token)).toContain(
      "get_order_status",
    );
  });

  it("RT0 presented twice at once (a race): both answered with one pair, which goes on working", async () => {
    const { client, tokens } = await connect();
    const [a, b] = await Promise.all([refresh(client, tokens.refresh_token), refresh(client, tokens.refresh_token)]);
    expect([a.status, b.status]).toEqual([200, 200]);
    const [pairA, pairB] = (await Promise.all([a.json(), b.json()])) as [TokenSet, TokenSet];
    expect(pairB.refresh_token).toBe(pairA.refresh_token);
    expect(await listedTools((await refreshed(client, pairA.refresh_token)).access_token)).toContain(
      "get_order_status",
    );
  });

  it("RT0 presented again by another client, even within the window: refused, and the grant is revoked", async () => {
    const { client, tokens: first } = await connect();
    const second = await refreshed(client, first.refresh_token);
    const other = await registerClient();
    expect((await refresh(other, first.refresh_token)).status).toBe(400);
    await expectRevoked(client, second);
  });

  it("a reuse from further back in the chain revokes as well", async () => {
    const { client, tokens: first } = await connect();
    const second = await refreshed(client, first.refresh_token);
    const third = await refreshed(client, second.refresh_token);
    expect((await refresh(client, first.refresh_token)).status).toBe(400);
    await expectRevoked(client, third);
  });

  it("a made-up token naming the grant (its id is in every access token) revokes nothing", async () => {
    const { client, tokens } = await connect();
    const [userId, grantId] = tokens.access_token.split(":");
    expect((await refresh(client, `${userId}:${grantId}:not-the-secret`)).status).toBe(400);
    expect((await refresh(client, tokens.access_token)).status).toBe(400);
    expect(await listedTools((await refreshed(client, tokens.refresh_token)).access_token)).toContain(
      "get_order_status",
    );
  });
});

describe("PKCE verifier tries per authorization code", () => {
  const wrong = "w".repeat(64);

  it("two wrong verifiers, then the right one: tokens", async () => {
    const client = await registerClient();
    const issued = await authorizeCode(client, ["orders:read"]);
    for (let i = 0; i < 2; i++) expect((await exchangeCode(client, issued, { code_verifier: wrong })).status).toBe(400);
    expect((await exchangeCode(client, issued)).status).toBe(200);
  });

  it("three wrong verifiers use the code up: the right one is refused after them, and the grant is gone", async () => {
    const client = await registerClient();
    const issued = await authorizeCode(client, ["orders:read"]);
    for (let i = 0; i < 3; i++) {
      const response = await exchangeCode(client, issued, { code_verifier: wrong });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: string }).error).toBe("invalid_grant");
    }
    const right = await exchangeCode(client, issued);
    expect(right.status).toBe(400);
    expect(((await right.json()) as { error: string }).error).toBe("invalid_grant");
    expect(await grantListed(client.client_id)).toBe(false);
  });

  it("a wrong verifier with a made-up code counts against no real code", async () => {
    const client = await registerClient();
    const issued = await authorizeCode(client, ["orders:read"]);
    const [userId, grantId] = issued.code.split(":");
    for (let i = 0; i < 3; i++)
      expect(
        (await exchangeCode(client, { ...issued, code: `${userId}:${grantId}:guess-${i}` }, { code_verifier: wrong }))
          .status,
      ).toBe(400);
    expect((await exchangeCode(client, issued)).status).toBe(200);
  });
});
