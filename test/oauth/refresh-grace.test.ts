import { env } from "cloudflare:workers";
import type { OAuthHelpers } from "@cloudflare/workers-oauth-provider";
import { describe, expect, it } from "vitest";
import { REFRESH_GRACE_SECONDS } from "../../src/oauth/refresh-grace";
import { guardedTokenEndpoint } from "../../src/oauth/token-guard";

// The refresh-token grace window on a clock of its own, over a stand-in for the OAuth library: the grant's last
// rotated token, from the same client, within REFRESH_GRACE_SECONDS, gets the first use's answer again and nothing
// new is issued; after the window, or from another client, the replay revokes the grant as before.

function rig() {
  let clock = Date.UTC(2026, 11, 7, 12, 0, 0);
  const grant = `g${crypto.randomUUID().slice(0, 8)}`;
  const revoked: string[] = [];
  let issued = 0;
  const deps = {
    kv: env.OAUTH_KV,
    oauth: {
      revokeGrant: async (grantId: string) => void revoked.push(grantId),
      lookupClient: async () => null,
    } as unknown as OAuthHelpers,
    refreshTokenTtlSeconds: 3600,
    now: () => clock,
    // The library: a new pair for every call it gets.
    answer: async () => {
      issued++;
      return Response.json(
        {
          access_token: `u:${grant}:access-${issued}`,
          refresh_token: `u:${grant}:refresh-${issued}`,
          scope: "orders:read",
        },
        { headers: { "Access-Control-Allow-Origin": "*" } },
      );
    },
  };
  const refresh = (refreshToken: string, clientId = "client-a") =>
    guardedTokenEndpoint(
      deps,
      new Request("http://localhost/oauth/token", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: refreshToken, client_id: clientId }),
      }),
    );
  return {
    refresh,
    rt0: `u:${grant}:refresh-0`,
    grant,
    revoked,
    issued: () => issued,
    advance: (seconds: number) => {
      clock += seconds * 1000;
    },
  };
}

describe("the refresh-token grace window", () => {
  it(`is ${REFRESH_GRACE_SECONDS} seconds: within it a replay gets the first answer, headers and all; past it, revokes`, async () => {
    const { refresh, rt0, grant, revoked, issued, advance } = rig();
    const first = await refresh(rt0);
    const body = await first.text();
    advance(REFRESH_GRACE_SECONDS - 1);
    const again = await refresh(rt0);
    expect(again.status).toBe(200);
    expect(await again.text()).toBe(body);
    expect(again.headers.get("access-control-allow-origin")).toBe("*");
    expect(issued()).toBe(1);
    expect(revoked).toEqual([]);
    advance(2);
    await refresh(rt0);
    expect(revoked).toEqual([grant]);
  });

  it("covers only the grant's last rotated token: one from further back revokes at once", async () => {
    const { refresh, rt0, grant, revoked } = rig();
    const rt1 = ((await (await refresh(rt0)).json()) as { refresh_token: string }).refresh_token;
    await refresh(rt1);
    await refresh(rt0);
    expect(revoked).toEqual([grant]);
  });

  it("covers only the client that used it: another client's replay revokes at once", async () => {
    const { refresh, rt0, grant, revoked } = rig();
    await refresh(rt0, "client-a");
    await refresh(rt0, "client-b");
    expect(revoked).toEqual([grant]);
  });

  it("two presentations at once reach the library once and get one answer", async () => {
    const { refresh, rt0, revoked, issued } = rig();
    const [a, b] = await Promise.all([refresh(rt0), refresh(rt0)]);
    expect(await a.text()).toBe(await b.text());
    expect(issued()).toBe(1);
    expect(revoked).toEqual([]);
  });

  it("keeps no token in clear in KV", async () => {
    const { refresh, rt0, grant } = rig();
    await refresh(rt0);
    const stored = (await env.OAUTH_KV.get(`order-ops:refresh-grace:${grant}`)) ?? "";
    expect(stored).not.toBe("");
    expect(stored).not.toContain("refresh-1");
    expect(stored).not.toContain("access-1");
    expect(stored).not.toContain(rt0);
  });
});
