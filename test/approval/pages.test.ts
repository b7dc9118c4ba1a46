import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ProposalView } from "../../src/proposals/schemas";
import { ACME_TOKEN, connectClient } from "../helpers/mcp-client";
import {
  csrfOf,
  escapeHtml,
  expectSignInForm,
  formPostedFrom,
  FROM_OUR_PAGE,
  get,
  page,
  postForm,
  sessionFor,
  signIn,
  storedSessionCookie,
  textOf,
  type Page,
} from "../helpers/approval-pages";
import { ACME_APPROVER, ACME_APPROVER_TOKEN, confirm, countAuditEvents, getProposal, GLOBEX_APPROVER_TOKEN, propose, reject } from "../helpers/ops";
import { DEFAULT_ADDRESS, insertFreshOrder, readRow } from "../helpers/fresh-orders";

// The browser approval app, over raw HTTP: a proposal link shows nothing until
// an approver signs in; decisions need the session's CSRF token and a
// same-origin form post.

const CSP = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

let acme: Client;

beforeAll(async () => {
  acme = await connectClient(ACME_TOKEN, "approval-pages");
});
afterAll(async () => {
  await acme.close();
});

function expectSafePage(p: Page): void {
  expect(p.headers.get("content-security-policy")).toBe(CSP);
  expect(p.headers.get("x-frame-options")).toBe("DENY");
  expect(p.headers.get("cache-control")).toBe("no-store");
  expect(p.headers.get("content-type")).toMatch(/^text\/html/);
  expect(p.html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
}

async function freshProposal(): Promise<{ orderId: string; proposal: ProposalView }> {
  const orderId = await insertFreshOrder({ exception: "payment_declined_inventory_held" });
  return { orderId, proposal: await propose(acme, orderId) };
}

describe("signed out", () => {
  it("a proposal link shows the sign-in form and nothing about the proposal or the order", async () => {
    const { orderId, proposal } = await freshProposal();
    const p = await page(await get(`/approvals/${proposal.proposal_id}`));
    expect(p.status).toBe(200);
    expectSafePage(p);
    expectSignInForm(p.html, `/approvals/${proposal.proposal_id}`);
    for (const secret of [orderId, "Release held stock", "Release the held stock", "$66.00", "Maya Lindqvist", "Test Recipient", "Springfield", "Payment failed", "payment_failed", proposal.expires_at, "High risk", "csrf"]) {
      expect(p.html).not.toContain(secret);
    }
    expect(p.headers.getSetCookie()).toEqual([]);
  });

  it("the queue shows the sign-in form too", async () => {
    const p = await page(await get("/approvals"));
    expect(p.status).toBe(200);
    expectSignInForm(p.html, "/approvals");
  });
});

describe("sign-in", () => {
  it("a wrong token: 401 sign-in page with the error, no cookie", async () => {
    const p = await page(await signIn("definitely-not-a-token", "/approvals"));
    expect(p.status).toBe(401);
    expectSafePage(p);
    expect(p.html).toContain('role="alert">that is not a valid approver token<');
    expectSignInForm(p.html, "/approvals");
    expect(p.headers.getSetCookie()).toEqual([]);
  });

  it("an MCP token: 401 saying MCP tokens cannot approve", async () => {
    const response = await signIn(ACME_TOKEN, "/approvals");
    const p = await page(response);
    expect(p.status).toBe(401);
    expect(p.html).toContain("MCP tokens cannot approve proposals; sign in with an approver token");
    expect(p.headers.getSetCookie()).toEqual([]);
  });

  it("an empty token: 401 asking for one", async () => {
    const p = await page(await signIn("   ", "/approvals"));
    expect(p.status).toBe(401);
    expect(p.html).toContain("enter your approver token");
  });

  it("the approver token: 303 to next with an HttpOnly, SameSite=Strict session cookie for the whole site (approvals and runs)", async () => {
    const { proposal } = await freshProposal();
    const next = `/approvals/${proposal.proposal_id}`;
    const response = await signIn(ACME_APPROVER_TOKEN, next);
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe(next);
    const cookies = response.headers.getSetCookie();
    expect(cookies).toHaveLength(1);
    const attributes = (cookies[0] ?? "").split(";").map((a) => a.trim());
    // A random id and its hono/cookie signature (base64, URL-encoded), nothing else.
    expect(decodeURIComponent(attributes[0] ?? "")).toMatch(/^approver_session=[0-9a-f-]{36}\.[A-Za-z0-9+/]{43}=$/);
    expect(attributes).toContain("Path=/");
    expect(attributes).toContain("HttpOnly");
    expect(attributes).toContain("SameSite=Strict");
    expect(attributes).toContain("Max-Age=1800");
    // Plain http (local dev) cannot carry a Secure cookie.
    expect(attributes).not.toContain("Secure");
    // The cookie does not contain the token.
    expect(cookies[0]).not.toContain(ACME_APPROVER_TOKEN);
  });

  it.each(["/approvals/prop_x", "/runs/R-abc-12"])("next=%j inside the app: redirect there", async (next) => {
    const response = await signIn(ACME_APPROVER_TOKEN, next);
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe(next);
  });

  it.each(["https://evil.example/phish", "//evil.example", "/approvalsx", "/api/approvals", "javascript:alert(1)", "/runs", "/runs/", "/runsx/R-1", "/runs/R-1/../../mcp", "/mcp"])("next=%j outside the approval app and run pages: redirect to /approvals", async (next) => {
    const response = await signIn(ACME_APPROVER_TOKEN, next);
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe("/approvals");
  });

  it("a sign-in posted from another site is refused", async () => {
    const response = await signIn(ACME_APPROVER_TOKEN, "/approvals", formPostedFrom("https://evil.example", "cross-site"));
    expect(response.status).toBe(403);
    expect(response.headers.getSetCookie()).toEqual([]);
    const fromOpaqueOrigin = await signIn(ACME_APPROVER_TOKEN, "/approvals", formPostedFrom("null", "cross-site"));
    expect(fromOpaqueOrigin.status).toBe(403);
  });
});

describe("signed in", () => {
  let cookie: string;
  let orderId: string;
  let proposal: ProposalView;
  let review: Page;

  beforeAll(async () => {
    cookie = await sessionFor(ACME_APPROVER_TOKEN);
    ({ orderId, proposal } = await freshProposal());
    review = await page(await get(`/approvals/${proposal.proposal_id}`, cookie));
  });

  it("the review page shows, in words, the order, every before/after row, the money, the risk, the expiry and a form with a csrf field", () => {
    expect(review.status).toBe(200);
    expectSafePage(review);
    const text = textOf(review.html);
    expect(review.html).toContain("<h1>Release the held stock and cancel the unpaid order</h1>");
    expect(text).toContain(`Order ${orderId}`);
    expect(review.html).toContain('<span class="label">Release held stock and cancel order</span>');
    expect(text).toContain(`${orderId} · Payment failed · version 1`);
    expect(proposal.expected_changes.map((c) => c.field)).toEqual(["status", "exception", "inventory", "fulfillment"]);
    expect(text).toContain("Order status Payment failed → Cancelled");
    expect(text).toContain("Exception Payment declined, stock held (open, Payments Ops) → Payment declined, stock held (resolved, Payments Ops)");
    expect(text).toContain(
      "Stock SKU-2240 × 1 held at RNO-1 SKU-1180 × 2 held at RNO-1 → SKU-2240 × 1 released back to stock at RNO-1 → SKU-1180 × 2 released back to stock at RNO-1",
    );
    expect(text).toContain("Fulfillment Blocked: waiting for payment → Cancelled: cancelled after payment was declined; held stock released");
    expect(review.html).toContain('<div class="card" id="money"><p>Cancels a $66.00 order that was never paid (payment declined); nothing to refund.</p></div>');
    expect(review.html).toContain('<span class="badge risk-high">High risk</span>');
    expect(review.html).toContain('<span class="badge status-pending_approval" id="status">Waiting for approval</span>');
    const exact = `${proposal.expires_at.slice(0, 10)} ${proposal.expires_at.slice(11, 19)} UTC`;
    expect(review.html).toMatch(new RegExp(`expires <time datetime="${proposal.expires_at}" title="${exact}">in 1[45] min</time>`));
    expect(review.html).toContain(`<form class="card" method="post" action="/approvals/${proposal.proposal_id}/decision">`);
    expect(csrfOf(review.html).length).toBeGreaterThan(20);
    expect(review.html).toContain('<button class="approve" type="submit" name="decision" value="approve">');
    expect(review.html).toContain(`Signed in as ${escapeHtml(ACME_APPROVER)}`);
  });

  it("the queue lists the proposal", async () => {
    const queue = await page(await get("/approvals", cookie));
    expect(queue.status).toBe(200);
    expect(queue.html).toContain(`<a class="summary" href="/approvals/${proposal.proposal_id}">Release the held stock and cancel the unpaid order</a>`);
  });

  it("a decision without a csrf field, or with a wrong one: 403 and nothing changes", async () => {
    const rowBefore = await readRow("acme", orderId);
    const path = `/approvals/${proposal.proposal_id}/decision`;
    const csrf = csrfOf(review.html);
    const attempts = [
      postForm(path, { decision: "approve", reason: "no csrf" }, { cookie }),
      postForm(path, { decision: "approve", reason: "wrong csrf", csrf: `${csrf.slice(0, -2)}xx` }, { cookie }),
      postForm(path, { decision: "approve", reason: "empty csrf", csrf: "" }, { cookie }),
    ];
    for (const response of await Promise.all(attempts)) {
      const p = await page(response);
      expect(p.status).toBe(403);
      expect(p.html).toContain("this form did not come from the approval page");
    }
    expect((await getProposal(acme, proposal.proposal_id)).status).toBe("pending_approval");
    expect(await countAuditEvents("acme", orderId, "proposal_approved")).toBe(0);
    expect(await readRow("acme", orderId)).toEqual(rowBefore);
  });

  it("a decision with the right csrf but posted from another site: 403", async () => {
    const path = `/approvals/${proposal.proposal_id}/decision`;
    const fields = { decision: "approve", reason: "cross-site", csrf: csrfOf(review.html) };
    expect((await postForm(path, fields, { cookie, ...formPostedFrom("https://evil.example", "cross-site") })).status).toBe(403);
    expect((await postForm(path, fields, { cookie, ...formPostedFrom("http://localhost.evil.example", "cross-site") })).status).toBe(403);
    expect((await postForm(path, fields, { cookie, ...formPostedFrom("null", "cross-site") })).status).toBe(403);
    expect((await getProposal(acme, proposal.proposal_id)).status).toBe("pending_approval");
  });

  it("a reason that is too short: 422 page with the error, still pending", async () => {
    const p = await page(await postForm(`/approvals/${proposal.proposal_id}/decision`, { decision: "approve", reason: "ok", csrf: csrfOf(review.html) }, { cookie }));
    expect(p.status).toBe(422);
    expect(p.html).toContain("give a reason of at least 3 characters");
    expect((await getProposal(acme, proposal.proposal_id)).status).toBe("pending_approval");
  });

  it("the right csrf from the same origin: 303, approved; then confirm_resolution over MCP applies it", async () => {
    const response = await postForm(
      `/approvals/${proposal.proposal_id}/decision`,
      { decision: "approve", reason: "declined twice, release the stock", csrf: csrfOf(review.html) },
      { cookie, ...FROM_OUR_PAGE },
    );
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe(`/approvals/${proposal.proposal_id}?decided=approve`);
    expect(await getProposal(acme, proposal.proposal_id)).toMatchObject({
      status: "approved",
      decided_by: ACME_APPROVER,
      decision_reason: "declined twice, release the stock",
    });

    const after = await page(await get(`/approvals/${proposal.proposal_id}?decided=approve`, cookie));
    expect(textOf(after.html)).toContain(`Approved. Nothing has changed yet: ask the agent to confirm proposal ${proposal.proposal_id}.`);
    expect(after.html).toContain('<div class="card notice" role="status" id="next-step">');
    expect(after.html).not.toContain('name="decision"');

    const result = await confirm(acme, proposal.proposal_id);
    expect(result.status).toBe("applied");
    expect((await readRow("acme", orderId)).version).toBe(2);
    expect((await readRow("acme", orderId)).status).toBe("cancelled");
  });

  it("reject through the page: 303 and rejected", async () => {
    const { proposal: other } = await freshProposal();
    const form = await page(await get(`/approvals/${other.proposal_id}`, cookie));
    const response = await postForm(`/approvals/${other.proposal_id}/decision`, { decision: "reject", reason: "call the customer first", csrf: csrfOf(form.html) }, { cookie });
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe(`/approvals/${other.proposal_id}?decided=reject`);
    expect((await getProposal(acme, other.proposal_id)).status).toBe("rejected");
  });

  it("values are escaped: a reason with markup is shown as text", async () => {
    const { proposal: other } = await freshProposal();
    await reject(other.proposal_id, `<script>alert("x")</script>`);
    const p = await page(await get(`/approvals/${other.proposal_id}`, cookie));
    expect(p.html).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;");
    expect(p.html).not.toContain("<script>");
  });

  it("order fields are escaped too: markup in the shipping address is shown as text", async () => {
    const orderId = await insertFreshOrder({ exception: "payment_declined_inventory_held", address: { ...DEFAULT_ADDRESS, recipient: `<img src=x onerror="alert(1)">` } });
    const other = await propose(acme, orderId);
    const p = await page(await get(`/approvals/${other.proposal_id}`, cookie));
    expect(p.html).toContain("&lt;img src=x onerror=&quot;alert(1)&quot;&gt;");
    expect(p.html).not.toContain("<img");
  });

  it("an unknown proposal: 404 page", async () => {
    const p = await page(await get("/approvals/prop_doesnotexist000000", cookie));
    expect(p.status).toBe(404);
    expect(p.html).toContain("Proposal not found");
  });
});

describe("forged and foreign sessions", () => {
  let proposal: ProposalView;
  let orderId: string;
  let cookie: string;

  beforeAll(async () => {
    ({ orderId, proposal } = await freshProposal());
    cookie = await sessionFor(ACME_APPROVER_TOKEN);
  });

  function tamper(pair: string, index: number): string {
    const chars = [...pair];
    chars[index] = chars[index] === "A" ? "B" : "A";
    return chars.join("");
  }

  it("control: the untouched cookie opens the review page", async () => {
    const p = await page(await get(`/approvals/${proposal.proposal_id}`, cookie));
    expect(p.html).toContain(orderId);
  });

  it("a cookie with one character changed (payload or signature) is treated as signed out", async () => {
    const [name, value = ""] = cookie.split("=", 2);
    const dot = value.indexOf(".");
    const start = `${name}=`.length;
    for (const index of [start + 2, start + Math.floor(dot / 2), start + dot + 5, start + dot + 20]) {
      const forged = tamper(cookie, index);
      expect(forged).not.toBe(cookie);
      const p = await page(await get(`/approvals/${proposal.proposal_id}`, forged));
      expectSignInForm(p.html, `/approvals/${proposal.proposal_id}`);
      expect(p.html).not.toContain(orderId);
    }
  });

  it("a hand-made cookie claiming to be the approver is treated as signed out, and cannot decide", async () => {
    const payload = btoa(JSON.stringify({ account: "acme", approver: ACME_APPROVER, expires: Math.floor(Date.now() / 1000) + 600, nonce: "n" }))
      .replace(/\+/g, "-")
      .replace(/\//g, "_")
      .replace(/=+$/, "");
    const forged = `approver_session=${payload}.${"A".repeat(43)}`;
    const p = await page(await get(`/approvals/${proposal.proposal_id}`, forged));
    expectSignInForm(p.html, `/approvals/${proposal.proposal_id}`);
    const decision = await postForm(`/approvals/${proposal.proposal_id}/decision`, { decision: "approve", reason: "forged", csrf: "x" }, { cookie: forged });
    expect(decision.status).toBe(401);
    expect(await decision.text()).toContain("your session ended; sign in again");
    expect((await getProposal(acme, proposal.proposal_id)).status).toBe("pending_approval");
  });

  it("a correctly signed but expired session is signed out (control: a current one from the same signer works)", async () => {
    const ok = await page(await get(`/approvals/${proposal.proposal_id}`, await storedSessionCookie(new Date())));
    expect(ok.html).toContain(orderId);
    const expired = await page(await get(`/approvals/${proposal.proposal_id}`, await storedSessionCookie(new Date(Date.now() - 31 * 60_000))));
    expectSignInForm(expired.html, `/approvals/${proposal.proposal_id}`);
  });

  it("the globex approver's session cannot open or decide an acme proposal: 404", async () => {
    const globexCookie = await sessionFor(GLOBEX_APPROVER_TOKEN);
    const view = await page(await get(`/approvals/${proposal.proposal_id}`, globexCookie));
    expect(view.status).toBe(404);
    expect(view.html).toContain("Proposal not found");
    expect(view.html).not.toContain(orderId);

    const queue = await page(await get("/approvals", globexCookie));
    const csrf = csrfOf(queue.html);
    const decision = await page(await postForm(`/approvals/${proposal.proposal_id}/decision`, { decision: "approve", reason: "not mine to approve", csrf }, { cookie: globexCookie }));
    expect(decision.status).toBe(404);
    expect((await getProposal(acme, proposal.proposal_id)).status).toBe("pending_approval");
    expect(await countAuditEvents("acme", orderId, "proposal_approved")).toBe(0);
  });

  it("sign-out clears the cookie", async () => {
    const queue = await page(await get("/approvals", cookie));
    const response = await postForm("/approvals/sign-out", { csrf: csrfOf(queue.html) }, { cookie });
    expect(response.status).toBe(303);
    const [cleared] = response.headers.getSetCookie();
    expect(cleared).toMatch(/^approver_session=;/);
    expect(cleared).toContain("Max-Age=0");
    expect(cleared).toContain("Path=/");
  });
});
