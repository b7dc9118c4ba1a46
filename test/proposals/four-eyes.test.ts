import { describe, expect, it } from "vitest";
import { isProposer, secondApproverReason } from "../../src/proposals/four-eyes";
import { APPROVER, order, withDesk } from "../helpers/desk";
import { value } from "../helpers/results";

// Four eyes: a risky change needs two distinct approvers; the person who
// proposed it can never approve it; each approval leaves its own audit event.

const ANY_RISK = { overCents: null, risk: "low" as const };
const SECOND = { account: "acme", approver: "Blake" };
const decision = (reason: string) => ({ decision: "approve" as const, reason });

describe("the rule", () => {
  it("asks two approvers for money at stake at or above the bound, or for a risk at or above the level", () => {
    const refund = { action: "cancel_duplicate_order" as const, risk: "medium" as const };
    expect(secondApproverReason({ overCents: 5000, risk: null }, refund, { total_cents: 6600 })).toBe(
      "it moves $66.00 of the customer's money, at or above the $50.00 (FOUR_EYES_OVER_CENTS) that needs two approvers",
    );
    expect(secondApproverReason({ overCents: 10_000, risk: null }, refund, { total_cents: 6600 })).toBeNull();
    // No money moves with an escalation, whatever the order's value.
    expect(
      secondApproverReason(
        { overCents: 1, risk: null },
        { action: "escalate_to_human", risk: "low" },
        { total_cents: 6600 },
      ),
    ).toBeNull();
    expect(secondApproverReason({ overCents: null, risk: "medium" }, refund, { total_cents: 1 })).toBe(
      "its risk is medium, and changes of medium risk or more (FOUR_EYES_RISK) need two approvers",
    );
    expect(secondApproverReason({ overCents: null, risk: "high" }, refund, { total_cents: 1 })).toBeNull();
  });

  it("knows the proposer by name, or by the operator name their approver token declares", () => {
    expect(isProposer({ created_by: "Ada Ops" }, { account: "acme", approver: "ada ops" })).toBe(true);
    expect(isProposer({ created_by: "Ada Ops" }, { account: "acme", approver: "Ada", operator: "Ada Ops" })).toBe(true);
    expect(isProposer({ created_by: "Ada Ops" }, APPROVER)).toBe(false);
  });
});

describe("a proposal that needs two approvers", () => {
  it("stays pending after the first approval, is approved by a second, different one, and each approval is its own event", async () => {
    await withDesk(
      async ({ desk, orders }) => {
        orders.add(order("ORD-1"));
        const proposed = value(await desk.proposeResolution("ORD-1", "Ada Ops"));
        expect(proposed).toMatchObject({ approvals_required: 2, approvals: [] });
        expect(proposed.second_approver_reason).toBe(
          `its risk is ${proposed.risk}, and changes of low risk or more (FOUR_EYES_RISK) need two approvers`,
        );

        const first = value(await desk.decide(proposed.proposal_id, decision("looks right"), APPROVER));
        expect(first).toMatchObject({
          status: "pending_approval",
          approvals: [{ approver: "Avery", reason: "looks right" }],
        });

        const again = await desk.decide(proposed.proposal_id, decision("still right"), APPROVER);
        expect(again).toEqual({
          ok: false,
          error: {
            code: "conflict",
            message: `you already approved this proposal at ${first.approvals[0]?.at}; it needs a second, different approver, and one person cannot be both`,
          },
        });

        const second = value(await desk.decide(proposed.proposal_id, decision("agree"), SECOND));
        expect(second).toMatchObject({
          status: "approved",
          decided_by: "Avery and Blake",
          approvals: [{ approver: "Avery" }, { approver: "Blake" }],
        });

        const events = orders.events
          .filter((e) => e.proposal_id === proposed.proposal_id)
          .map((e) => [e.event_id, e.event_type, e.actor]);
        expect(events).toEqual([
          [`${proposed.proposal_id}:proposed`, "proposal_created", "Ada Ops"],
          [`${proposed.proposal_id}:approval_recorded`, "proposal_approval_recorded", "Avery"],
          [`${proposed.proposal_id}:approved`, "proposal_approved", "Blake"],
        ]);
      },
      { fourEyes: ANY_RISK },
    );
  });

  it("one rejection is enough to stop it", async () => {
    await withDesk(
      async ({ desk, orders }) => {
        orders.add(order("ORD-2"));
        const proposed = value(await desk.proposeResolution("ORD-2", "Ada Ops"));
        value(await desk.decide(proposed.proposal_id, decision("fine by me"), APPROVER));
        const rejected = value(
          await desk.decide(proposed.proposal_id, { decision: "reject", reason: "not without the customer" }, SECOND),
        );
        expect(rejected).toMatchObject({ status: "rejected", decided_by: "Blake" });
      },
      { fourEyes: ANY_RISK },
    );
  });

  it("without a rule, one approval is enough, as before", async () => {
    await withDesk(async ({ desk, orders }) => {
      orders.add(order("ORD-3"));
      const proposed = value(await desk.proposeResolution("ORD-3", "Ada Ops"));
      expect(proposed.approvals_required).toBe(1);
      expect(value(await desk.decide(proposed.proposal_id, decision("ok"), APPROVER))).toMatchObject({
        status: "approved",
        decided_by: "Avery",
      });
    });
  });
});

describe("the proposer", () => {
  it("can never approve their own proposal, with one approver or two, and is told why", async () => {
    await withDesk(async ({ desk, orders }) => {
      orders.add(order("ORD-4"));
      const proposed = value(await desk.proposeResolution("ORD-4", "Ada Ops"));
      const self = await desk.decide(proposed.proposal_id, decision("mine, trust me"), {
        account: "acme",
        approver: "Ada",
        operator: "Ada Ops",
      });
      expect(self).toEqual({
        ok: false,
        error: {
          code: "forbidden",
          message:
            "you proposed this change (as Ada Ops), so you cannot also approve it; another approver must decide it",
        },
      });
      expect(value(await desk.getProposal(proposed.proposal_id)).status).toBe("pending_approval");
    });
  });
});
