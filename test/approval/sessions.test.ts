import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { env } from "cloudflare:workers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/core/encoding";
import { d1ApproverSessions } from "../../src/store/approver-sessions";
import { fetchWithEnv } from "../helpers/app-with-env";
import { csrfOf, expectSignInForm, get, page, postForm, sessionFor, signIn, storedSessionCookie } from "../helpers/approval-pages";
import { ACME_TOKEN, connectClient, workerFetch } from "../helpers/mcp-client";
import { ACME_APPROVER, ACME_APPROVER_TOKEN, BASE_URL, getProposal, insertFreshOrder, propose } from "../helpers/ops";

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

async function freshProposalId(): Promise<string> {
  const orderId = await insertFreshOrder({ exception: "payment_declined_inventory_held" });
  return (await propose(acme, orderId)).proposal_id;
}

function sessionIdOf(cookie: string): string {
  const value = decodeURIComponent(cookie.slice("approver_session=".length));
  return value.slice(0, value.lastIndexOf("."));
}

async function signOut(cookie: string, csrf: string): Promise<Response> {
  return postForm("/approvals/sign-out", { csrf }, { cookie });
}

function countSessionRows(sessionHash: string): Promise<number | null> {
  return env.DB.prepare("SELECT count(*) AS n FROM approver_sessions WHERE session_hash = ?").bind(sessionHash).first<number>("n");
}

describe("sign-out", () => {
  it("revokes the session on the server: a copied cookie no longer opens a page or decides", async () => {
    const proposalId = await freshProposalId();
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
    const decision = await postForm(`/approvals/${proposalId}/decision`, { decision: "approve", reason: "with a copied cookie", csrf }, { cookie: copied });
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
    for (const secret of ["acme", "Avery", ACME_APPROVER_TOKEN]) expect(decodeURIComponent(cookie)).not.toContain(secret);
    expect(await countSessionRows(await sha256Hex(sessionId))).toBe(1);
    expect(await countSessionRows(sessionId)).toBe(0);
    const row = await env.DB.prepare("SELECT account, approver FROM approver_sessions WHERE session_hash = ?").bind(await sha256Hex(sessionId)).first();
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
    const rotated = JSON.stringify({ ...tokens, "acme-approver-new-token": { account: "acme", approver: ACME_APPROVER } });
    const response = await fetchWithEnv(new Request(`${BASE_URL}/approvals`, { headers: { cookie } }), { APPROVER_TOKENS: rotated });
    expectSignInForm(await response.text(), "/approvals");
  });
});

describe("same-origin rule for form posts", () => {
  // A DNS-rebinding page runs on its own name, so its Origin matches the request's Host.
  const REBOUND = "http://attacker.example";

  it("a sign-in posted on a rebound host name from that host's page is refused: Origin is compared with PUBLIC_BASE_URL", async () => {
    const response = await workerFetch(`${REBOUND}/approvals/sign-in`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: REBOUND },
      body: new URLSearchParams({ token: ACME_APPROVER_TOKEN, next: "/approvals" }).toString(),
    });
    expect(response.status).toBe(403);
    expect(await response.text()).toContain("sign-in must come from this site");
    expect(response.headers.getSetCookie()).toEqual([]);
  });

  it("a decision posted on a rebound host name with a valid session and token is refused", async () => {
    const proposalId = await freshProposalId();
    const cookie = await sessionFor(ACME_APPROVER_TOKEN);
    const csrf = csrfOf((await page(await get(`/approvals/${proposalId}`, cookie))).html);
    const response = await workerFetch(`${REBOUND}/approvals/${proposalId}/decision`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: REBOUND, cookie },
      body: new URLSearchParams({ decision: "approve", reason: "rebound", csrf }).toString(),
    });
    expect(response.status).toBe(403);
    expect((await getProposal(acme, proposalId)).status).toBe("pending_approval");
  });

  it("a post from PUBLIC_BASE_URL's origin, or marked Sec-Fetch-Site same-origin, passes", async () => {
    expect((await signIn(ACME_APPROVER_TOKEN, "/approvals", { origin: BASE_URL })).status).toBe(303);
    expect((await signIn(ACME_APPROVER_TOKEN, "/approvals", { "sec-fetch-site": "same-origin" })).status).toBe(303);
  });

  it("a cross-site sign-out is refused quietly: back to the app, session intact", async () => {
    const cookie = await sessionFor(ACME_APPROVER_TOKEN);
    const csrf = csrfOf((await page(await get("/approvals", cookie))).html);
    const out = await postForm("/approvals/sign-out", { csrf }, { cookie, origin: "https://evil.example" });
    expect(out.status).toBe(303);
    expect((await page(await get("/approvals", cookie))).html).toContain("<h1>Pending proposals</h1>");
  });
});
