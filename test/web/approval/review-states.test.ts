import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { get, page, sessionFor, textOf } from "../../helpers/approval-pages";
import { DEFAULT_ADDRESS, insertFreshOrder } from "../../helpers/fresh-orders";
import { connectClient } from "../../helpers/mcp-client";
import {
  ACME_APPROVER,
  ACME_OPERATOR,
  approve,
  confirm,
  expireProposal,
  prepareAddress,
  propose,
  reject,
} from "../../helpers/ops";
import { ACME_APPROVER_TOKEN, ACME_TOKEN } from "../../helpers/tokens";

// What the approval app tells an approver in each state of a proposal, and
// how the list tells proposals apart: words, amounts and relative times,
// never internal names or raw timestamps.

let acme: Client;
let cookie: string;

beforeAll(async () => {
  acme = await connectClient(ACME_TOKEN, "approval-review-states");
  cookie = await sessionFor(ACME_APPROVER_TOKEN);
});
afterAll(async () => {
  await acme.close();
});

async function reviewText(proposalId: string): Promise<string> {
  const p = await page(await get(`/approvals/${proposalId}`, cookie));
  expect(p.status).toBe(200);
  return textOf(p.html);
}

const PINE = {
  recipient: "Test Recipient",
  line1: "12 Pine St",
  city: "Austin",
  region: "TX",
  postal_code: "78701",
  country: "US",
};

describe("the list", () => {
  it("each entry shows its one-line change, order, risk, status, amount and relative expiry", async () => {
    const duplicate = await insertFreshOrder({ exception: "duplicate_order" });
    const cancel = await propose(acme, duplicate);
    const moved = await insertFreshOrder({ exception: null, status: "pending" });
    const address = await prepareAddress(acme, moved, PINE);

    const queue = await page(await get("/approvals", cookie));
    const entryOf = (id: string) => {
      const start = queue.html.indexOf(`<a class="summary" href="/approvals/${id}">`);
      expect(start).toBeGreaterThan(0);
      return textOf(queue.html.slice(start, queue.html.indexOf("</li>", start)));
    };
    const cancelEntry = entryOf(cancel.proposal_id);
    expect(cancelEntry).toMatch(
      new RegExp(
        `^Cancel the duplicate order and refund it Order ${duplicate}High riskWaiting for approvalRefund \\$66\\.00expires in 1[45] min Cancel duplicate order · proposed just now by ${ACME_OPERATOR.replace(/[()]/g, "\\$&")}$`,
      ),
    );
    expect(entryOf(address.proposal_id)).toContain(
      `Ship to Test Recipient, 12 Pine St, Austin, TX 78701, US Order ${moved}Medium risk`,
    );
    expect(entryOf(address.proposal_id)).toContain("Order value $66.00");
    expect(queue.html).toContain(
      `<time datetime="${cancel.expires_at}" title="${cancel.expires_at.slice(0, 10)} ${cancel.expires_at.slice(11, 19)} UTC">`,
    );
    expect(queue.html).not.toContain(`>${cancel.expires_at}<`);
  });
});

describe("after a decision", () => {
  it("approved: nothing has changed yet, ask the agent to confirm; once applied, the page says so with the outcome", async () => {
    const orderId = await insertFreshOrder({ exception: "duplicate_order" });
    const proposal = await propose(acme, orderId);
    await approve(proposal.proposal_id, "double charge confirmed");
    const approved = await reviewText(proposal.proposal_id);
    expect(approved).toContain(
      `Approved. Nothing has changed yet: ask the agent to confirm proposal ${proposal.proposal_id}.`,
    );
    expect(approved).toContain(`Approved by ${ACME_APPROVER} just now: “double charge confirmed”.`);
    expect(approved).toMatch(/It must be confirmed before it expires in 1[45] min; after that it cannot be applied\./);
    expect(approved).toContain("The order now Unchanged until the agent confirms the approved proposal.");
    expect(approved).not.toContain("until the proposal is approved");

    expect((await confirm(acme, proposal.proposal_id)).status).toBe("applied");
    const applied = await reviewText(proposal.proposal_id);
    expect(applied).toContain(`Applied just now: cancel duplicate order on order ${orderId}.`);
    expect(applied).toContain(
      `Approved by ${ACME_APPROVER}, confirmed by ${ACME_OPERATOR}. The order went from version 1 to 2.`,
    );
    expect(applied).toContain("Money Refunded $66.00 to the customer: the duplicate was charged.");
    expect(applied).toContain("The change that was applied Order status Pending → Cancelled");
    expect(applied).toContain(`${orderId} · Cancelled · version 2`);
    expect(applied).not.toContain("expires in");
  });

  it("rejected: by whom and why, and that nothing will change", async () => {
    const proposal = await propose(acme, await insertFreshOrder({ exception: "payment_declined_inventory_held" }));
    await reject(proposal.proposal_id, "call the customer first");
    const text = await reviewText(proposal.proposal_id);
    expect(text).toContain(`Rejected by ${ACME_APPROVER} just now: “call the customer first”. Nothing will change`);
  });
});

describe("proposals that can no longer be decided say why", () => {
  it("out of date: the order moved on, and what changed it", async () => {
    const orderId = await insertFreshOrder({ exception: "duplicate_order" });
    const readdress = await prepareAddress(acme, orderId, PINE);
    const cancel = await propose(acme, orderId);
    await approve(cancel.proposal_id);
    await confirm(acme, cancel.proposal_id);
    const text = await reviewText(readdress.proposal_id);
    expect(text).toContain(
      `Out of date: order ${orderId} moved from version 1 to 2 after this proposal was made. Nothing was changed.`,
    );
    expect(text).toContain(
      "What changed on the order since it was proposed just now: cancelled the duplicate and returned the customer's money",
    );
    expect(text).not.toContain("placed via web (test fixture)");
  });

  it("replaced: links the newer proposal for the same order", async () => {
    const orderId = await insertFreshOrder({ exception: null, status: "pending" });
    const older = await prepareAddress(acme, orderId, PINE);
    const newer = await prepareAddress(acme, orderId, { ...PINE, line1: "40 Elm Ave" });
    const p = await page(await get(`/approvals/${older.proposal_id}`, cookie));
    expect(p.html).toContain('<span class="badge status-superseded" id="status">Replaced</span>');
    expect(p.html).toContain(`<a href="/approvals/${newer.proposal_id}"><code>${newer.proposal_id}</code></a>`);
    expect(textOf(p.html)).toContain(
      `Replaced by a newer proposal for the same order: ${newer.proposal_id}. Nothing was changed; decide on the newer one instead.`,
    );
  });

  it("expired: when, and that nothing was changed", async () => {
    const proposal = await prepareAddress(
      acme,
      await insertFreshOrder({ exception: null, status: "pending", address: DEFAULT_ADDRESS }),
      PINE,
    );
    await expireProposal("acme", proposal.proposal_id, 3);
    const text = await reviewText(proposal.proposal_id);
    expect(text).toContain("Expired 3 min ago before it was approved. Nothing was changed.");
    expect(text).not.toMatch(/\d{4}-\d\d-\d\dT/);
  });
});
