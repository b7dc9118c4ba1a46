import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ProposalView } from "../../../src/proposals/proposal-schemas";
import { get, page, sessionFor, textOf } from "../../helpers/approval-pages";
import { insertFreshOrder } from "../../helpers/fresh-orders";
import { connectClient } from "../../helpers/mcp-client";
import { approvalApi, approve, auditLog, confirm, decide, propose } from "../../helpers/ops";
import { ACME_APPROVER_TOKEN, ACME_SECOND_APPROVER_TOKEN, ACME_TOKEN, ACME_VIEWER_TOKEN } from "../../helpers/tokens";

// Four eyes and roles through the approval API and page, as people use them.
// The test environment asks two approvers for money at stake of $1,000 or
// more (FOUR_EYES_OVER_CENTS, vitest.config.ts); the acme viewer token has
// the viewer role.

type Client = Awaited<ReturnType<typeof connectClient>>;
let acme: Client;
beforeAll(async () => {
  acme = await connectClient(ACME_TOKEN, "four-eyes");
});
afterAll(async () => {
  await acme.close();
});

/** An order worth $2,500 whose fix voids the customer's hold: two approvers. */
async function bigProposal(): Promise<{ orderId: string; proposal: ProposalView }> {
  const orderId = await insertFreshOrder({ exception: "payment_declined_inventory_held", totalCents: 250_000 });
  return { orderId, proposal: await propose(acme, orderId) };
}

async function decideBody(response: Response): Promise<{ proposal?: ProposalView; message?: string; code?: string }> {
  return (await response.json()) as { proposal?: ProposalView; message?: string; code?: string };
}

describe("a proposal that needs two approvers", () => {
  it("takes two distinct approvers; the first is told it waits, the same one cannot be both, and the change then applies once", async () => {
    const { orderId, proposal } = await bigProposal();
    expect(proposal).toMatchObject({ approvals_required: 2, approvals: [] });
    expect(proposal.second_approver_reason).toBe(
      "it moves $2500.00 of the customer's money, at or above the $1000.00 (FOUR_EYES_OVER_CENTS) that needs two approvers",
    );

    const first = await decide(proposal.proposal_id, "approve", "the hold is stale", ACME_APPROVER_TOKEN);
    expect(first.status).toBe(200);
    expect((await decideBody(first)).proposal).toMatchObject({
      status: "pending_approval",
      approvals: [{ approver: "Avery Approver (acme, local dev)" }],
    });
    expect((await confirm(acme, proposal.proposal_id)).status).toBe("approval_required");

    const twice = await decide(proposal.proposal_id, "approve", "still stale", ACME_APPROVER_TOKEN);
    expect(twice.status).toBe(409);
    expect((await decideBody(twice)).message).toMatch(
      /^you already approved this proposal at .+; it needs a second, different approver, and one person cannot be both$/,
    );

    const second = await approve(proposal.proposal_id, "agreed, release it", ACME_SECOND_APPROVER_TOKEN);
    expect(second).toMatchObject({
      status: "approved",
      decided_by: "Avery Approver (acme, local dev) and Blake Approver (acme, local dev)",
    });
    expect((await confirm(acme, proposal.proposal_id)).status).toBe("applied");

    const events = (await auditLog(acme, orderId)).events
      .filter((e) => e.proposal_id === proposal.proposal_id)
      .map((e) => [e.event_type, e.actor]);
    expect(events).toEqual([
      ["proposal_created", "Ada Ops (acme, local dev)"],
      ["proposal_approval_recorded", "Avery Approver (acme, local dev)"],
      ["proposal_approved", "Blake Approver (acme, local dev)"],
      ["resolution_applied", "Ada Ops (acme, local dev)"],
    ]);
  });

  it("before anyone has approved, the page asks for two approvers without pointing at anyone above", async () => {
    const { proposal } = await bigProposal();
    const text = textOf(
      (await page(await get(`/approvals/${proposal.proposal_id}`, await sessionFor(ACME_APPROVER_TOKEN)))).html,
    );
    expect(text).toContain("Nobody has approved it yet.");
    expect(text).toContain("2 approvers, other than the proposer (Ada Ops (acme, local dev)), must approve.");
    expect(text).not.toContain("other than those above");
  });

  it("the page shows who approved and what is still needed, and gives the first approver no second vote", async () => {
    const { proposal } = await bigProposal();
    await decide(proposal.proposal_id, "approve", "the hold is stale", ACME_APPROVER_TOKEN);
    const avery = await page(await get(`/approvals/${proposal.proposal_id}`, await sessionFor(ACME_APPROVER_TOKEN)));
    const text = textOf(avery.html);
    expect(text).toContain("Two approvers It moves $2500.00 of the customer's money");
    expect(text).toContain("Approved by Avery Approver (acme, local dev)");
    expect(text).toContain(
      "One more approver, other than those above and the proposer (Ada Ops (acme, local dev)), must approve.",
    );
    expect(text).toMatch(/You already approved this proposal at (just now|\d+ (second|minute)s? ago); it needs/);
    // The refusal's time is the page's relative time, not a raw timestamp.
    expect(text).not.toMatch(/\d{4}-\d\d-\d\dT\d\d:\d\d/);
    expect(avery.html).not.toContain('value="approve"');

    const blake = await page(
      await get(`/approvals/${proposal.proposal_id}`, await sessionFor(ACME_SECOND_APPROVER_TOKEN)),
    );
    expect(blake.html).toContain('value="approve"');
  });
});

describe("roles", () => {
  it("a viewer sees the queue and the proposal, but deciding is refused, naming the role it needs", async () => {
    const { proposal } = await bigProposal();
    const queue = await approvalApi("", { token: ACME_VIEWER_TOKEN });
    expect(queue.status).toBe(200);
    expect(((await queue.json()) as { proposals: ProposalView[] }).proposals.map((p) => p.proposal_id)).toContain(
      proposal.proposal_id,
    );

    for (const decision of ["approve", "reject"]) {
      const refused = await decide(proposal.proposal_id, decision, "I only look", ACME_VIEWER_TOKEN);
      expect(refused.status).toBe(403);
      expect((await decideBody(refused)).message).toBe(
        "deciding a proposal needs the approver role; Vic Viewer (acme, local dev) has the viewer role, which can only see the queue",
      );
    }
    const viewer = await page(await get(`/approvals/${proposal.proposal_id}`, await sessionFor(ACME_VIEWER_TOKEN)));
    expect(viewer.html).not.toContain('value="approve"');
    expect(textOf(viewer.html)).toContain("Deciding a proposal needs the approver role");
    expect(
      (await decideBody(await approvalApi(`/${proposal.proposal_id}`, { token: ACME_VIEWER_TOKEN }))).proposal?.status,
    ).toBe("pending_approval");
  });
});
