import { env } from "cloudflare:workers";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/core/encoding";
import { d1ApproverSessions } from "../../src/store/approver-sessions";
import { fetchWithEnv } from "../helpers/app-with-env";
import {
  csrfOf,
  expectSignInForm,
  FROM_OUR_PAGE,
  formPostedFrom,
  get,
  page,
  postForm,
  sessionFor,
  signIn,
  storedSessionCookie,
} from "../helpers/approval-pages";
import { connectClient } from "../helpers/mcp-client";
import { ACME_APPROVER, BASE_URL, getProposal, proposalFor } from "../helpers/ops";
import { countSessionRows } from "../helpers/rows";
import { ACME_APPROVER_TOKEN, ACME_TOKEN } from "../helpers/tokens";

// Approver sessions live on the server (D1); the cookie is only a signed id.
// Signing out revokes the session everywhere, and the approval app's
// same-origin rule compares with PUBLIC_BASE_URL, not the request's Host.

let acme: Client;

beforeAll(async () => {
  acme = await connectClient(ACME_TOKEN, "approval-sessions");
});
afterAll(async () => {
  await acme.close();
});

function sessionIdOf(cookie: string): string {
  const value = decodeURIComponent(cookie.slice("approver_session=".length));
  return value.slice(0, value.lastIndexOf("."));
}

async function signOut(cookie: string, csrf: string): Promise<Response> {
  return postForm("/approvals/sign-out", { csrf }, { cookie });
}

describe("sign-out", () => {
  it("revokes the session on the server: a copied cookie no longer opens a page or decides", async () => {
    const proposalId = (await proposalFor(acme, "payment_declined_inventory_held")).proposal.proposal_id;
    const cookie = await sessionFor(ACME_APPROVER_TOKEN);
    const copied = cookie;
    const review = await page(await get(`/approvals/${proposalId}`, cookie));
    expect(review.html).toContain(`Signed in as`);
    const csrf = csrfOf(review.html);

    const out = await signOut(cookie, csrf);
    expect(out.status).toBe(303);
    expect(out.headers.get("location")).toBe("/approvals");

    const after = await page(await get(`/approvals/${proposalId}`, copied));
    expectSignInForm(after.html, `/approvals/${proposalId}`);
    const decision = await postForm(
      `/approvals/${proposalId}/decision`,
      { decision: "approve", reason: "with a copied cookie", csrf },
      { cookie: copied },
    );
    expect(decision.status).toBe(401);
    expect(await decision.text()).toContain("your session ended; sign in again");
    expect((await getProposal(acme, proposalId)).status).toBe("pending_approval");
  });

  it("ends only that session: the approver's other session stays open", async () => {
    const phone = await sessionFor(ACME_APPROVER_TOKEN);
    const laptop = await sessionFor(ACME_APPROVER_TOKEN);
    const queue = await page(await get("/approvals", phone));
    await signOut(phone, csrfOf(queue.html));
    expectSignInForm((await page(await get("/approvals", phone))).html, "/approvals");
    expect((await page(await get("/approvals", laptop))).html).toContain("<h1>Pending proposals</h1>");
  });

  it("without the session's CSRF token revokes nothing (another site cannot sign you out)", async () => {
    const cookie = await sessionFor(ACME_APPROVER_TOKEN);
    const out = await signOut(cookie, "not-the-token");
    expect(out.status).toBe(303);
    expect(out.headers.getSetCookie()).toEqual([]);
    expect((await page(await get("/approvals", cookie))).html).toContain("<h1>Pending proposals</h1>");
  });
});

describe("what is stored where", () => {
  it("the cookie carries only a signed random id, and D1 holds its digest, never the id", async () => {
    const cookie = await sessionFor(ACME_APPROVER_TOKEN);
    const sessionId = sessionIdOf(cookie);
    expect(sessionId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    for (const secret of ["acme", "Avery", ACME_APPROVER_TOKEN])
      expect(decodeURIComponent(cookie)).not.toContain(secret);
    expect(await countSessionRows(await sha256Hex(sessionId))).toBe(1);
    expect(await countSessionRows(sessionId)).toBe(0);
    const row = await env.DB.prepare("SELECT account, approver FROM approver_sessions WHERE session_hash = ?")
      .bind(await sha256Hex(sessionId))
      .first();
    expect(row).toEqual({ account: "acme", approver: ACME_APPROVER });
  });

  it("a valid signature over an id with no row is signed out (the row is what makes a session)", async () => {
    const cookie = await storedSessionCookie(new Date());
    expect((await page(await get("/approvals", cookie))).html).toContain("<h1>Pending proposals</h1>");
    await d1ApproverSessions(env.DB).delete(await sha256Hex(sessionIdOf(cookie)));
    expectSignInForm((await page(await get("/approvals", cookie))).html, "/approvals");
  });

  it("signing in sweeps expired rows", async () => {
    const stale = await storedSessionCookie(new Date(Date.now() - 31 * 60_000));
    const staleHash = await sha256Hex(sessionIdOf(stale));
    expect(await countSessionRows(staleHash)).toBe(1);
    await sessionFor(ACME_APPROVER_TOKEN);
    expect(await countSessionRows(staleHash)).toBe(0);
  });

  it("changing APPROVER_TOKENS ends the sessions signed under the old ones", async () => {
    const cookie = await sessionFor(ACME_APPROVER_TOKEN);
    const tokens = JSON.parse(env.APPROVER_TOKENS) as Record<string, unknown>;
    const rotated = JSON.stringify({
      ...tokens,
      // Another person: two entries of one account may not share a name (four eyes tells people apart by it too).
      "acme-approver-new-token": { account: "acme", approver: "Nova Approver (acme, local dev)" },
    });
    const response = await fetchWithEnv(new Request(`${BASE_URL}/approvals`, { headers: { cookie } }), {
      APPROVER_TOKENS: rotated,
    });
    expectSignInForm(await response.text(), "/approvals");
  });
});

describe("same-origin rule for form posts", () => {
  // A DNS-rebinding page runs on its own name, so the browser marks its posts
  // same-origin and its Origin matches the request's Host: exactly what a
  // post from our own page looks like, except for the name.
  const REBOUND = "http://attacker.example:8787";
  const FROM_REBOUND_PAGE = formPostedFrom(REBOUND, "same-origin");

  it("a sign-in posted on a rebound host name from that host's own page is refused, though the browser calls it same-origin", async () => {
    const response = await signIn(ACME_APPROVER_TOKEN, "/approvals", FROM_REBOUND_PAGE, REBOUND);
    const refused = await page(response);
    expect(refused.status).toBe(403);
    expect(refused.html).toContain(
      "host attacker.example:8787 is not one this site answers to; add it to ALLOWED_HOSTS if it should be",
    );
    expect(refused.headers.getSetCookie()).toEqual([]);
    expect(refused.headers.get("content-security-policy")).toContain("default-src 'none'");
  });

  it("a decision posted on a rebound host name with a valid session and token is refused", async () => {
    const proposalId = (await proposalFor(acme, "payment_declined_inventory_held")).proposal.proposal_id;
    const cookie = await sessionFor(ACME_APPROVER_TOKEN);
    const csrf = csrfOf((await page(await get(`/approvals/${proposalId}`, cookie))).html);
    const response = await postForm(
      `/approvals/${proposalId}/decision`,
      { decision: "approve", reason: "rebound", csrf },
      { ...FROM_REBOUND_PAGE, cookie },
      REBOUND,
    );
    expect(response.status).toBe(403);
    expect((await getProposal(acme, proposalId)).status).toBe("pending_approval");
  });

  it.each(["/approvals", "/approvals/sign-in", "/runs/R-abc-12"])(
    "GET %s on a rebound host name is refused too",
    async (path) => {
      const cookie = await sessionFor(ACME_APPROVER_TOKEN);
      const refused = await page(await get(path, cookie, REBOUND));
      expect(refused.status).toBe(403);
      expect(refused.html).toContain("host attacker.example:8787 is not one this site answers to");
    },
  );

  it("a post from our own page at PUBLIC_BASE_URL passes", async () => {
    expect((await signIn(ACME_APPROVER_TOKEN, "/approvals", FROM_OUR_PAGE)).status).toBe(303);
  });

  it("a same-origin post from this machine under another served name (127.0.0.1 beside localhost) passes: the name is ours", async () => {
    const other = "http://127.0.0.1:8787";
    expect((await signIn(ACME_APPROVER_TOKEN, "/approvals", formPostedFrom(other, "same-origin"), other)).status).toBe(
      303,
    );
  });

  it("a cross-site sign-out is refused quietly: back to the app, session intact", async () => {
    const cookie = await sessionFor(ACME_APPROVER_TOKEN);
    const csrf = csrfOf((await page(await get("/approvals", cookie))).html);
    const out = await postForm(
      "/approvals/sign-out",
      { csrf },
      { cookie, ...formPostedFrom("https://evil.example", "cross-site") },
    );
    expect(out.status).toBe(303);
    expect((await page(await get("/approvals", cookie))).html).toContain("<h1>Pending proposals</h1>");
  });
});
