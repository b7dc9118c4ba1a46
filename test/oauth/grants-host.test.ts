import { describe, expect, it } from "vitest";
import { workerFetch } from "../helpers/mcp-client";
import { connectWithOAuth, ORIGIN, registerClient, tokenRequest } from "../helpers/oauth";
import { ACME_TOKEN } from "../helpers/tokens";

// /oauth/grants lists and revokes an operator's grants with the operator's
// MCP token, so it has the same door as /mcp: a rebound name (a Host this
// Worker is not reached by) or a foreign Origin is refused before the token
// is read. The protocol endpoints (/oauth/token, /oauth/register) refuse a
// foreign Host too, and keep answering browser-based clients' origins.

const REBOUND = "evil.example";

function grants(path = "", init: { method?: string; headers?: Record<string, string> } = {}): Promise<Response> {
  return workerFetch(`${ORIGIN}/oauth/grants${path}`, {
    method: init.method ?? "GET",
    headers: { authorization: `Bearer ${ACME_TOKEN}`, ...init.headers },
  });
}

async function listedIds(): Promise<string[]> {
  const response = await grants();
  expect(response.status).toBe(200);
  return ((await response.json()) as { grants: Array<{ grant_id: string }> }).grants.map((g) => g.grant_id);
}

async function newGrantId(): Promise<string> {
  const before = new Set(await listedIds());
  await connectWithOAuth(["orders:read"]);
  const added = (await listedIds()).filter((id) => !before.has(id));
  expect(added).toHaveLength(1);
  return added[0] ?? "";
}

describe("/oauth/grants behind the host and origin policy", () => {
  it(`Host ${REBOUND}: listing is refused with 403`, async () => {
    const response = await grants("", { headers: { host: REBOUND } });
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({
      code: "forbidden",
      message: `host ${REBOUND} is not one this OAuth server answers to; add it to ALLOWED_HOSTS if it should be`,
    });
  });

  it(`Host ${REBOUND}: revoking is refused with 403, and the grant lives on`, async () => {
    const grantId = await newGrantId();
    const response = await grants(`/${grantId}`, { method: "DELETE", headers: { host: REBOUND } });
    expect(response.status).toBe(403);
    expect(await listedIds()).toContain(grantId);
  });

  it("a foreign Origin: listing and revoking are refused with 403", async () => {
    const grantId = await newGrantId();
    const origin = "https://evil.example";
    const listed = await grants("", { headers: { origin } });
    expect(listed.status).toBe(403);
    expect(await listed.json()).toEqual({
      code: "forbidden",
      message: `origin ${origin} is not allowed to call this OAuth server; add it to ALLOWED_ORIGINS if it should be`,
    });
    expect((await grants(`/${grantId}`, { method: "DELETE", headers: { origin } })).status).toBe(403);
    expect(await listedIds()).toContain(grantId);
  });

  it("this Worker's own names still list and revoke", async () => {
    const grantId = await newGrantId();
    expect((await grants("", { headers: { host: "127.0.0.1:8787" } })).status).toBe(200);
    expect((await grants(`/${grantId}`, { method: "DELETE", headers: { host: "localhost:8787" } })).status).toBe(200);
    expect(await listedIds()).not.toContain(grantId);
  });
});

describe("the protocol endpoints", () => {
  it(`Host ${REBOUND}: /oauth/register and /oauth/token are refused with 403`, async () => {
    const register = await workerFetch(`${ORIGIN}/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/json", host: REBOUND },
      body: JSON.stringify({
        client_name: "Rebound",
        redirect_uris: ["http://127.0.0.1:9999/callback"],
        token_endpoint_auth_method: "none",
      }),
    });
    expect(register.status).toBe(403);
    const token = await workerFetch(`${ORIGIN}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", host: REBOUND },
      body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: "a:b:c", client_id: "x" }).toString(),
    });
    expect(token.status).toBe(403);
  });

  it("a browser-based client's Origin still reaches /oauth/token (the library's CORS answers it)", async () => {
    const client = await registerClient();
    const response = await tokenRequest(
      { grant_type: "refresh_token", refresh_token: "a:b:c", client_id: client.client_id },
      (url, init) =>
        workerFetch(url, {
          ...init,
          headers: { ...(init?.headers as Record<string, string>), origin: "https://claude.ai" },
        }),
    );
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toBe("invalid_grant");
  });
});
