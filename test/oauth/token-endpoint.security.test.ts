import { afterEach, describe, expect, it, vi } from "vitest";
import { workerFetch } from "../helpers/mcp-client";
import {
  authorizeCode,
  exchangeCode,
  ORIGIN,
  type RegisteredClient,
  registerClient,
  type TokenSet,
} from "../helpers/oauth";

// The token endpoint's own rules (a refresh token works once, a code takes three wrong verifiers, no client id on
// this machine) hold however the form's Content-Type is written: media types compare case-insensitively, with
// parameters and whitespace (RFC 9110 8.3.1), and the OAuth library behind the guard reads every such spelling as a
// form. An adversarial run used `Application/X-WWW-Form-Urlencoded` to walk past all three.

const SPELLINGS = [
  "Application/X-WWW-Form-Urlencoded",
  "APPLICATION/X-WWW-FORM-URLENCODED; charset=UTF-8",
  " application/x-www-form-urlencoded ;charset=utf-8",
];

function tokenPost(contentType: string, fields: Record<string, string>): Promise<Response> {
  return workerFetch(`${ORIGIN}/oauth/token`, {
    method: "POST",
    headers: { "content-type": contentType },
    body: new URLSearchParams(fields).toString(),
  });
}

async function connect(): Promise<{ client: RegisteredClient; tokens: TokenSet }> {
  const client = await registerClient();
  const response = await exchangeCode(client, await authorizeCode(client, ["orders:read"]));
  expect(response.status).toBe(200);
  return { client, tokens: await response.json() };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe.each(SPELLINGS)("Content-Type %j", (contentType) => {
  it("a refresh token from further back in the chain, presented again, revokes the grant", async () => {
    const { client, tokens } = await connect();
    const refresh = (refreshToken: string) =>
      tokenPost(contentType, { grant_type: "refresh_token", refresh_token: refreshToken, client_id: client.client_id });
    const second = (await (await refresh(tokens.refresh_token)).json()) as TokenSet;
    const third = (await (await refresh(second.refresh_token)).json()) as TokenSet;
    expect((await refresh(tokens.refresh_token)).status).toBe(400);
    expect((await refresh(third.refresh_token)).status).toBe(400);
  });

  it("an authorization code is used up by three wrong verifiers", async () => {
    const client = await registerClient();
    const issued = await authorizeCode(client, ["orders:read"]);
    const fields = {
      grant_type: "authorization_code",
      code: issued.code,
      redirect_uri: "http://127.0.0.1:9999/callback",
      client_id: client.client_id,
      resource: `${ORIGIN}/mcp`,
    };
    for (let i = 0; i < 3; i++)
      expect((await tokenPost(contentType, { ...fields, code_verifier: "w".repeat(64) })).status).toBe(400);
    expect((await tokenPost(contentType, { ...fields, code_verifier: issued.verifier })).status).toBe(400);
  });

  it("a loopback client id is refused before anything is fetched", async () => {
    const fetched: string[] = [];
    vi.spyOn(globalThis, "fetch").mockImplementation((input) => {
      fetched.push(input instanceof Request ? input.url : String(input));
      return Promise.resolve(new Response("not found", { status: 404 }));
    });
    const response = await tokenPost(contentType, {
      grant_type: "authorization_code",
      code: "a:b:c",
      code_verifier: "v".repeat(43),
      client_id: "https://127.0.0.1:18999/client.json",
    });
    expect(response.status).toBe(401);
    expect(fetched).toEqual([]);
  });
});
