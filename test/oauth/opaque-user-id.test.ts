import { describe, expect, it } from "vitest";
import { workerFetch } from "../helpers/mcp-client";
import {
  authorizeCode,
  exchangeCode,
  listedTools,
  registerClient,
  type TokenSet,
  tokenRequest,
} from "../helpers/oauth";
import { ACME_TOKEN, GLOBEX_TOKEN } from "../helpers/tokens";

// OAuth codes and tokens begin with the grant's user id, in plain text. That
// id is opaque: it names no account and no person, so a log that records a
// token learns neither. It is stable, so an operator's grants stay theirs.

const NAMES = ["acme", "globex", "Ada", "Gus", "Ops", "local", "dev", "%20"];

async function issue(token = ACME_TOKEN): Promise<{ code: string; tokens: TokenSet }> {
  const client = await registerClient();
  const issued = await authorizeCode(client, ["orders:read"], token);
  const response = await exchangeCode(client, issued);
  expect(response.status).toBe(200);
  return { code: issued.code, tokens: await response.json() };
}

const userIdOf = (credential: string) => credential.split(":")[0] ?? "";

describe("the user id in codes and tokens", () => {
  it("names neither the account nor the operator", async () => {
    const { code, tokens } = await issue();
    for (const credential of [code, tokens.access_token, tokens.refresh_token]) {
      const userId = userIdOf(credential);
      expect(userId).toMatch(/^op-[A-Za-z0-9_-]{22}$/);
      for (const name of NAMES) expect(userId).not.toContain(name);
    }
  });

  it("is the same for every grant of one operator, and differs between operators", async () => {
    const first = await issue(ACME_TOKEN);
    const second = await issue(ACME_TOKEN);
    const other = await issue(GLOBEX_TOKEN);
    expect(userIdOf(second.tokens.access_token)).toBe(userIdOf(first.tokens.access_token));
    expect(userIdOf(other.tokens.access_token)).not.toBe(userIdOf(first.tokens.access_token));
  });

  it("tokens still act for the operator who signed in, refresh, and are listed as theirs", async () => {
    const client = await registerClient({ client_name: "Opaque Id Client" });
    const issued = await authorizeCode(client, ["orders:read"]);
    const tokens = (await (await exchangeCode(client, issued)).json()) as TokenSet;
    expect(await listedTools(tokens.access_token)).toContain("get_order_status");
    const refreshed = await tokenRequest({
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token,
      client_id: client.client_id,
    });
    expect(refreshed.status).toBe(200);
    const listed = await workerFetch("http://localhost/oauth/grants", {
      headers: { authorization: `Bearer ${ACME_TOKEN}` },
    });
    const { grants } = (await listed.json()) as { grants: Array<{ client_id: string; client_name: string }> };
    expect(grants.filter((g) => g.client_id === client.client_id).map((g) => g.client_name)).toEqual([
      "Opaque Id Client",
    ]);
  });
});
