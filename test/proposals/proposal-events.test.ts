import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { proposalEvent, proposalEventId, type StepOccurrence } from "../../src/proposals/lifecycle";
import { D1AccountOrders } from "../../src/store/account-orders";
import { insertFreshOrder } from "../helpers/fresh-orders";
import { countProposalEvents } from "../helpers/rows";

// A proposal's steps leave audit events with ids that say which step they
// are. The trail's insert is OR IGNORE on the id, so a step that can repeat
// (an approval, once a proposal may need two approvers) needs an id per
// occurrence, or its second event would be dropped without a word.

const account = "acme";

function approvalBy(proposal: { proposal_id: string; order_id: string }, approver: string, ordinal: number) {
  return proposalEvent({
    proposal,
    step: "approved",
    ordinal,
    actorKind: "approver",
    actor: approver,
    reason: `approved by ${approver}`,
    at: new Date().toISOString(),
  });
}

describe("proposal event ids", () => {
  it("keep the proposal's and the step's id for the steps that happen once, and for the first approval", () => {
    const once: StepOccurrence[] = [
      { step: "proposed" },
      { step: "superseded" },
      { step: "rejected" },
      { step: "approved", ordinal: 1 },
    ];
    expect(once.map((occurrence) => proposalEventId("prop_1", occurrence))).toEqual([
      "prop_1:proposed",
      "prop_1:superseded",
      "prop_1:rejected",
      "prop_1:approved",
    ]);
    expect(proposalEventId("prop_1", { step: "approved", ordinal: 2 })).toBe("prop_1:approved:2");
    expect(() => proposalEventId("prop_1", { step: "approved", ordinal: 0 })).toThrow(/counts from 1/);
  });

  it("two approvals of one proposal both land in the trail, and each is still written once however often it is retried", async () => {
    const orderId = await insertFreshOrder({ account, exception: "fraud_review" });
    const proposal = { proposal_id: `prop_${crypto.randomUUID()}`, order_id: orderId };
    const orders = new D1AccountOrders(env.DB, account);
    await orders.recordEvent(approvalBy(proposal, "Avery", 1));
    await orders.recordEvent(approvalBy(proposal, "Blake", 2));
    await orders.recordEvent(approvalBy(proposal, "Blake", 2));
    await orders.recordEvent(approvalBy(proposal, "Avery", 1));
    expect(await countProposalEvents(proposal.proposal_id, "proposal_approved")).toBe(2);
    const log = await orders.auditLog(orderId, { after: null, limit: 50 });
    const approvals = log?.events.filter((event) => event.event_type === "proposal_approved");
    expect(approvals?.map((event) => [event.event_id, event.actor])).toEqual([
      [`${proposal.proposal_id}:approved`, "Avery"],
      [`${proposal.proposal_id}:approved:2`, "Blake"],
    ]);
  });
});
