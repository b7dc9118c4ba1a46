import { describe, expect, it } from "vitest";
import { nextStep } from "../../src/mcp/tools/approval-wait.tools";
import { isProposer, secondApproverReason } from "../../src/proposals/approval-rules";
import { APPROVER, order, person, withProposalService } from "../helpers/proposal-service";
import { value } from "../helpers/results";

// Four eyes: a risky change needs two distinct approvers; the person who
// proposed it can never approve it; each approval leaves its own audit event.

const ANY_RISK = { overCents: null, risk: "low" as const };
const SECOND = { account: "acme", id: "blake", approver: "Blake" };
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

  it("knows the proposer by identity, by the operator their approver token links to, or by a name that reads the same", () => {
    const proposal = { created_by: "Ada Ops", created_by_id: "ada" };
    // The same identity on the approver entry, whatever its name says.
    expect(isProposer(proposal, { account: "acme", id: "ada", approver: "A. Ops (approvals)" })).toBe(true);
    // Linked to the operator: by the identity the link resolved to.
    expect(
      isProposer(proposal, {
        account: "acme",
        id: "token-1",
        approver: "Someone",
        operator: "ops",
        operator_id: "ada",
      }),
    ).toBe(true);
    // A name that reads the same as the proposer's, however it is spelled.
    for (const alias of ["ada ops", "Ada\u00a0Ops", "Ada \u200bOps", "Ａｄａ Ｏｐｓ", " ADA   OPS "]) {
      expect(isProposer(proposal, { account: "acme", id: "token-2", approver: alias }), alias).toBe(true);
    }
    expect(isProposer(proposal, APPROVER)).toBe(false);
    // A proposal stored before identities existed is still known by its proposer's name.
    expect(isProposer({ created_by: "Ada Ops", created_by_id: null }, { ...APPROVER, approver: "ada ops" })).toBe(true);
  });

  it("counts one approval per person: a second token of the same identity, or a look-alike name, is the same approver", async () => {
    await withProposalService(
      async ({ service, orders }) => {
        orders.add(order("ORD-1"));
        const proposed = value(await service.propose("resolution", "ORD-1", {}, person("Ada Ops")));
        value(await service.decide(proposed.proposal_id, decision("looks right"), APPROVER));
        for (const twin of [
          { account: "acme", id: "avery", approver: "Avery (second token)" },
          { account: "acme", id: "token-nbsp", approver: "Avery" },
          { account: "acme", id: "token-nbsp", approver: "Avery\u00a0" },
          { account: "acme", id: "token-zero-width", approver: "Av\u200Bery" },
          { account: "acme", id: "token-full-width", approver: "Ａｖｅｒｙ" },
        ]) {
          const again = await service.decide(proposed.proposal_id, decision("me again"), twin);
          expect(again.ok ? again.value.status : again.error.code, twin.approver).toBe("conflict");
        }
        const second = value(await service.decide(proposed.proposal_id, decision("agree"), SECOND));
        expect(second.status).toBe("approved");
        expect(second.approvals.map((a) => a.approver_id)).toEqual(["avery", "blake"]);
      },
      { fourEyes: ANY_RISK },
    );
  });
});

describe("a proposal that needs two approvers", () => {
  it("says, when half approved, how many approvals are recorded, by whom, and that the next must be someone else", async () => {
    await withProposalService(
      async ({ service, orders }) => {
        orders.add(order("ORD-1"));
        const proposed = value(await service.propose("resolution", "ORD-1", {}, person("Ada Ops")));
        const none = value(await service.confirm(proposed.proposal_id, "Ada Ops"));
        expect(none.status).toBe("approval_required");
        expect(none.message).toMatch(/^a human approver must approve this proposal at /);

        const first = value(await service.decide(proposed.proposal_id, decision("looks right"), APPROVER));
        const half = value(await service.confirm(proposed.proposal_id, "Ada Ops"));
        expect(half.status).toBe("approval_required");
        expect(half.message).toBe(
          `1 of 2 approvals is recorded (by Avery); the next must come from a different approver, not Avery and not the proposer Ada Ops. Ask them to approve at ${first.approval_url}; until then nothing can be applied and nothing was changed. Confirm again before ${first.expires_at}.`,
        );
        expect(nextStep(first)).toBe(
          `Still waiting: 1 of 2 approvals is recorded (by Avery); the next must come from a different approver, not Avery and not the proposer Ada Ops. Call wait_for_approval again, or ask them to open ${first.approval_url}. Nothing can approve it from here.`,
        );
      },
      { fourEyes: ANY_RISK },
    );
  });

  it("stays pending after the first approval, is approved by a second, different one, and each approval is its own event", async () => {
    await withProposalService(
      async ({ service, orders }) => {
        orders.add(order("ORD-1"));
        const proposed = value(await service.propose("resolution", "ORD-1", {}, person("Ada Ops")));
        expect(proposed).toMatchObject({ approvals_required: 2, approvals: [] });
        expect(proposed.second_approver_reason).toBe(
          `its risk is ${proposed.risk}, and changes of low risk or more (FOUR_EYES_RISK) need two approvers`,
        );

        const first = value(await service.decide(proposed.proposal_id, decision("looks right"), APPROVER));
        expect(first).toMatchObject({
          status: "pending_approval",
          approvals: [{ approver: "Avery", reason: "looks right" }],
        });

        const again = await service.decide(proposed.proposal_id, decision("still right"), APPROVER);
        expect(again).toEqual({
          ok: false,
          error: {
            code: "conflict",
            message: `you already approved this proposal at ${first.approvals[0]?.at}; it needs a second, different approver, and one person cannot be both`,
          },
        });

        const second = value(await service.decide(proposed.proposal_id, decision("agree"), SECOND));
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
    await withProposalService(
      async ({ service, orders }) => {
        orders.add(order("ORD-2"));
        const proposed = value(await service.propose("resolution", "ORD-2", {}, person("Ada Ops")));
        value(await service.decide(proposed.proposal_id, decision("fine by me"), APPROVER));
        const rejected = value(
          await service.decide(
            proposed.proposal_id,
            { decision: "reject", reason: "not without the customer" },
            SECOND,
          ),
        );
        expect(rejected).toMatchObject({ status: "rejected", decided_by: "Blake" });
      },
      { fourEyes: ANY_RISK },
    );
  });

  it("without a rule, one approval is enough, as before", async () => {
    await withProposalService(async ({ service, orders }) => {
      orders.add(order("ORD-3"));
      const proposed = value(await service.propose("resolution", "ORD-3", {}, person("Ada Ops")));
      expect(proposed.approvals_required).toBe(1);
      expect(value(await service.decide(proposed.proposal_id, decision("ok"), APPROVER))).toMatchObject({
        status: "approved",
        decided_by: "Avery",
      });
    });
  });
});

describe("the proposer", () => {
  it("can never approve their own proposal, with one approver or two, and is told why", async () => {
    await withProposalService(async ({ service, orders }) => {
      orders.add(order("ORD-4"));
      const proposed = value(await service.propose("resolution", "ORD-4", {}, person("Ada Ops")));
      const self = await service.decide(proposed.proposal_id, decision("mine, trust me"), {
        account: "acme",
        id: "ada",
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
      expect(value(await service.getProposal(proposed.proposal_id)).status).toBe("pending_approval");
    });
  });
});
