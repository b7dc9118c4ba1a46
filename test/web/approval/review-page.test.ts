import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ProposalView } from "../../../src/proposals/proposal-schemas";
import {
  csrfOf,
  escapeHtml,
  expectSafePage,
  FROM_OUR_PAGE,
  formPostedFrom,
  get,
  type Page,
  page,
  postForm,
  sessionFor,
  textOf,
} from "../../helpers/approval-pages";
import { DEFAULT_ADDRESS, insertFreshOrder, readRow } from "../../helpers/fresh-orders";
import { connectClient } from "../../helpers/mcp-client";
import { ACME_APPROVER, confirm, getProposal, proposalFor, propose, reject } from "../../helpers/ops";
import { countAuditEvents } from "../../helpers/rows";
import { ACME_APPROVER_TOKEN, ACME_TOKEN } from "../../helpers/tokens";

// The review page of the browser approval app, signed in: it shows the change
// in words, and a decision needs the session's CSRF token and a same-origin
// form post; every value on it is escaped.

let acme: Client;

beforeAll(async () => {
  acme = await connectClient(ACME_TOKEN, "approval-pages");
});
afterAll(async () => {
  await acme.close();
});

describe("signed in", () => {
  let cookie: string;
  let orderId: string;
  let proposal: ProposalView;
  let review: Page;

  beforeAll(async () => {
    cookie = await sessionFor(ACME_APPROVER_TOKEN);
    ({ orderId, proposal } = await proposalFor(acme, "payment_declined_inventory_held"));
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
    expect(text).toContain(
      "Exception Payment declined, stock held (open, Payments Ops) → Payment declined, stock held (resolved, Payments Ops)",
    );
    expect(text).toContain(
      "Stock SKU-2240 × 1 held at RNO-1 SKU-1180 × 2 held at RNO-1 → SKU-2240 × 1 released back to stock at RNO-1 → SKU-1180 × 2 released back to stock at RNO-1",
    );
    expect(text).toContain(
      "Fulfillment Blocked: waiting for payment → Cancelled: cancelled after payment was declined; held stock released",
    );
    expect(review.html).toContain(
      '<span id="money">Cancels a $66.00 order that was never paid (payment declined); nothing to refund.</span>',
    );
    expect(review.html).toContain('<span class="badge risk-high">High risk</span>');
    expect(review.html).toContain(
      '<span class="badge status-pending_approval" id="status">Waiting for approval</span>',
    );
    const exact = `${proposal.expires_at.slice(0, 10)} ${proposal.expires_at.slice(11, 19)} UTC`;
    expect(review.html).toMatch(
      new RegExp(`expires <time datetime="${proposal.expires_at}" title="${exact}">in 1[45] min</time>`),
    );
    expect(review.html).toContain(
      `<form class="card decision" id="decision" method="post" action="/approvals/${proposal.proposal_id}/decision">`,
    );
    expect(csrfOf(review.html).length).toBeGreaterThan(20);
    expect(review.html).toContain('<button class="approve" type="submit" name="decision" value="approve">');
    expect(review.html).toContain(`Signed in as ${escapeHtml(ACME_APPROVER)}`);
  });

  it("reads in words: no raw decline code, no 'time(s)', no state repeated in its event", () => {
    const text = textOf(review.html);
    expect(text).not.toContain("insufficient_funds");
    expect(text).not.toContain("time(s)");
    expect(text).toMatch(/payment declined (once|twice|\d+ times): /);
    expect(text).not.toMatch(/On hold: hold:|on hold: hold:/i);
  });

  it("an order on hold reads 'On hold: SKU-7720 has no stock', its state not repeated", async () => {
    const held = await proposalFor(acme, "fulfillment_hold_missing_sku");
    const text = textOf((await page(await get(`/approvals/${held.proposal.proposal_id}`, cookie))).html);
    expect(text).toContain("On hold: SKU-7720 has no stock");
    expect(text).not.toMatch(/on hold: hold:/i);
  });

  it("the decision comes before the evidence: money, reason and buttons, then the change, why and the order", () => {
    const at = (marker: string) => {
      const index = review.html.indexOf(marker);
      expect(index, marker).toBeGreaterThan(0);
      return index;
    };
    const sequence = [
      'id="money"',
      'id="reason"',
      'value="approve"',
      'value="reject"',
      "<h2>The change</h2>",
      "<h2>Why</h2>",
      "<h2>The order now</h2>",
    ].map(at);
    expect(sequence).toEqual([...sequence].sort((a, b) => a - b));
  });

  it("the queue lists the proposal", async () => {
    const queue = await page(await get("/approvals", cookie));
    expect(queue.status).toBe(200);
    expect(queue.html).toContain(
      `<a class="summary" href="/approvals/${proposal.proposal_id}">Release the held stock and cancel the unpaid order</a>`,
    );
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
    expect(
      (await postForm(path, fields, { cookie, ...formPostedFrom("https://evil.example", "cross-site") })).status,
    ).toBe(403);
    expect(
      (await postForm(path, fields, { cookie, ...formPostedFrom("http://localhost.evil.example", "cross-site") }))
        .status,
    ).toBe(403);
    expect((await postForm(path, fields, { cookie, ...formPostedFrom("null", "cross-site") })).status).toBe(403);
    expect((await getProposal(acme, proposal.proposal_id)).status).toBe("pending_approval");
  });

  it("a reason that is too short: 422 page with the error, still pending", async () => {
    const p = await page(
      await postForm(
        `/approvals/${proposal.proposal_id}/decision`,
        { decision: "approve", reason: "ok", csrf: csrfOf(review.html) },
        { cookie },
      ),
    );
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
    expect(textOf(after.html)).toContain(
      `Approved. Nothing has changed yet: ask the agent to confirm proposal ${proposal.proposal_id}.`,
    );
    expect(after.html).toContain('<div class="card notice" role="status" id="next-step">');
    expect(after.html).not.toContain('name="decision"');

    const result = await confirm(acme, proposal.proposal_id);
    expect(result.status).toBe("applied");
    expect((await readRow("acme", orderId)).version).toBe(2);
    expect((await readRow("acme", orderId)).status).toBe("cancelled");
  });

  it("reject through the page: 303 and rejected", async () => {
    const { proposal: other } = await proposalFor(acme, "payment_declined_inventory_held");
    const form = await page(await get(`/approvals/${other.proposal_id}`, cookie));
    const response = await postForm(
      `/approvals/${other.proposal_id}/decision`,
      { decision: "reject", reason: "call the customer first", csrf: csrfOf(form.html) },
      { cookie },
    );
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe(`/approvals/${other.proposal_id}?decided=reject`);
    expect((await getProposal(acme, other.proposal_id)).status).toBe("rejected");
  });

  it("values are escaped: a reason with markup is shown as text", async () => {
    const { proposal: other } = await proposalFor(acme, "payment_declined_inventory_held");
    await reject(other.proposal_id, `<script>alert("x")</script>`);
    const p = await page(await get(`/approvals/${other.proposal_id}`, cookie));
    expect(p.html).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;");
    expect(p.html).not.toContain("<script>");
  });

  it("order fields are escaped too: markup in the shipping address is shown as text", async () => {
    const orderId = await insertFreshOrder({
      exception: "payment_declined_inventory_held",
      address: { ...DEFAULT_ADDRESS, recipient: `<img src=x onerror="alert(1)">` },
    });
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
