import { describe, expect, it } from "vitest";
import type { ApplyProviderConfig } from "../../src/config/apply-provider-vars";
import { applyKey } from "../../src/proposals/apply-key";
import type { ProposalView } from "../../src/proposals/proposal-schemas";
import { applyingMessage } from "../../src/proposals/sentences";
import { boundedProvider } from "../../src/provider/apply-provider";
import { type StubBehaviour, StubProvider } from "../../src/provider/stub-provider";
import { APPROVER, type Harness, order, person, START, withProposalService } from "../helpers/proposal-service";
import { value } from "../helpers/results";

// Confirming with an external provider configured (a fake orders port, an
// injected clock, and the simulated provider scripted per idempotency key).
// The reconciler is the proposal service's reconcileApply, which the account's alarm
// runs; here the test runs it where the alarm would.

const SETUP: ApplyProviderConfig = { kind: "stub", timeoutMs: 5, reconcileSeconds: 30, reconcileChecks: 3 };

async function withProvider(
  body: (h: Harness & { stub: StubProvider }) => Promise<void>,
  config: Partial<ApplyProviderConfig> = {},
): Promise<void> {
  const stub = new StubProvider();
  const setup = { ...SETUP, ...config };
  await withProposalService((harness) => body({ ...harness, stub }), {
    provider: { provider: boundedProvider(stub, setup.timeoutMs), config: setup },
  });
}

/** An approved proposal for a fresh order, and the key the provider will see, scripted before anything is sent. */
async function approved(
  h: Harness & { stub: StubProvider },
  ...script: StubBehaviour[]
): Promise<{ proposal: ProposalView; key: string }> {
  h.orders.add(order("ORD-1"));
  const proposal = value(await h.service.propose("resolution", "ORD-1", {}, person("Ada")));
  value(await h.service.decide(proposal.proposal_id, { decision: "approve", reason: "checked" }, APPROVER));
  const key = await applyKey(proposal);
  h.stub.script(key, ...script);
  return { proposal, key };
}

const steps = (h: Harness) => h.orders.events.map((e) => e.event_type);

describe("a provider that answers", () => {
  it("applies once, after the provider made the change; the key is the proposal's and the trail shows each step", async () => {
    await withProvider(async (h) => {
      const { proposal, key } = await approved(h);
      const result = value(await h.service.confirm(proposal.proposal_id, "Ada"));
      expect(result.status).toBe("applied");
      expect(h.orders.applied.size).toBe(1);
      expect(h.stub.applications(key)).toBe(1);
      expect(h.stub.keysFor("ORD-1")).toEqual([key]);
      expect(key.startsWith(`${proposal.proposal_id}.`)).toBe(true);
      expect(steps(h)).toEqual([
        "proposal_created",
        "proposal_approved",
        "proposal_apply_requested",
        "proposal_apply_confirmed",
      ]);
      const stored = value(await h.service.getProposal(proposal.proposal_id));
      expect(stored.provider_apply).toMatchObject({ key, calls: 1, next_check_at: null, provider_reference: "stub-1" });
    });
  });

  it("a refusal ends failed: nothing is applied here, and confirming again answers the same without calling the provider", async () => {
    await withProvider(async (h) => {
      const { proposal, key } = await approved(h, "refuse");
      const result = value(await h.service.confirm(proposal.proposal_id, "Ada"));
      expect(result.status).toBe("failed");
      expect(result.message).toContain("refused by the provider (the provider refused escalate_to_human for ORD-1)");
      expect(h.orders.applied.size).toBe(0);
      const again = value(await h.service.confirm(proposal.proposal_id, "Ada"));
      expect(again).toEqual(result);
      expect(h.stub.calls(key)).toHaveLength(1);
      expect(steps(h).slice(2)).toEqual(["proposal_apply_requested", "proposal_apply_refused"]);
      // A failed proposal holds nothing up: the order can get a new one.
      expect(value(await h.service.propose("resolution", "ORD-1", {}, person("Ada"))).status).toBe("pending_approval");
    });
  });
});

describe("a provider that does not answer in time", () => {
  it("stays applying with the reconciler armed before the call; the reconciler finds the change made and settles it, applied once", async () => {
    await withProvider(async (h) => {
      const { proposal, key } = await approved(h, "lose_answer");
      const result = value(await h.service.confirm(proposal.proposal_id, "Ada"));
      expect(result.status).toBe("applying");
      expect(result.outcome).toBeNull();
      const applying = value(await h.service.getProposal(proposal.proposal_id));
      expect(applying.status).toBe("applying");
      expect(result.message).toBe(applyingMessage(applying, "the provider did not answer within 5 ms"));
      expect(h.checks).toEqual([{ at: new Date(START + 30_000).toISOString(), proposalId: proposal.proposal_id }]);
      expect(h.orders.applied.size).toBe(0);

      await h.service.reconcileApply(proposal.proposal_id);
      const settled = value(await h.service.getProposal(proposal.proposal_id));
      expect(settled.status).toBe("applied");
      expect(settled.outcome?.proposal_id).toBe(proposal.proposal_id);
      expect(h.orders.applied.size).toBe(1);
      expect(h.stub.applications(key)).toBe(1);
      expect(h.stub.calls(key).map((c) => c.kind)).toEqual(["apply", "outcome"]);
      expect(steps(h).slice(2)).toEqual([
        "proposal_apply_requested",
        "proposal_apply_unanswered",
        "proposal_apply_confirmed",
      ]);

      // A second alarm (or a stray one) finds nothing to do and asks nothing.
      await h.service.reconcileApply(proposal.proposal_id);
      expect(h.stub.calls(key)).toHaveLength(2);
      const confirmed = value(await h.service.confirm(proposal.proposal_id, "Ada"));
      expect(confirmed.status).toBe("applied");
    });
  });

  it("a call that never arrived is sent again under the same key, so the change is made exactly once", async () => {
    await withProvider(async (h) => {
      const { proposal, key } = await approved(h, "drop");
      expect(value(await h.service.confirm(proposal.proposal_id, "Ada")).status).toBe("applying");
      await h.service.reconcileApply(proposal.proposal_id);
      expect(value(await h.service.getProposal(proposal.proposal_id)).status).toBe("applied");
      expect(h.stub.calls(key).map((c) => c.kind)).toEqual(["apply", "outcome", "apply"]);
      expect(h.stub.keysFor("ORD-1")).toEqual([key]);
      expect(h.stub.applications(key)).toBe(1);
      expect(h.orders.applied.size).toBe(1);
      expect(steps(h).slice(2)).toEqual([
        "proposal_apply_requested",
        "proposal_apply_unanswered",
        "proposal_apply_resent",
        "proposal_apply_confirmed",
      ]);
    });
  });

  it("confirm while applying answers applying and calls the provider no second time; the approval window no longer ends it", async () => {
    await withProvider(async (h) => {
      const { proposal, key } = await approved(h, "lose_answer");
      value(await h.service.confirm(proposal.proposal_id, "Ada"));
      const again = await Promise.all([
        h.service.confirm(proposal.proposal_id, "Bo"),
        h.service.confirm(proposal.proposal_id, "Ada"),
      ]);
      expect(again.map((r) => value(r).status)).toEqual(["applying", "applying"]);
      expect(h.stub.calls(key)).toHaveLength(1);
      expect(h.checks).toHaveLength(1);
      h.advance(60 * 24);
      expect(value(await h.service.getProposal(proposal.proposal_id)).status).toBe("applying");
      expect(await h.service.expireDue()).toBe(0);
      // Nor can a second change of its kind be proposed while the provider may be making this one.
      const second = await h.service.propose("resolution", "ORD-1", {}, person("Ada"));
      expect(second.ok ? second.value.status : second.error.message).toContain("is being applied");
    });
  });

  it("a provider that stays silent is asked a bounded number of times, backing off, then left to a person; confirming again resumes", async () => {
    await withProvider(async (h) => {
      const { proposal, key } = await approved(h, "lose_answer", "drop", "drop", "drop", "answer");
      value(await h.service.confirm(proposal.proposal_id, "Ada"));
      for (let check = 0; check < 3; check++) await h.service.reconcileApply(proposal.proposal_id);
      const stopped = value(await h.service.getProposal(proposal.proposal_id));
      expect(stopped.status).toBe("applying");
      expect(stopped.provider_apply).toMatchObject({ calls: 4, checks_left: 0, next_check_at: null });
      expect(stopped.status_reason).toBe("the provider has not answered after 4 calls, so the checks stopped");
      // 30 s after the confirm, then 60 s and 120 s after the checks (the clock stood still); none after the last.
      expect(h.checks.map((c) => Date.parse(c.at) - START)).toEqual([30_000, 60_000, 120_000]);
      // Stopped: a stray alarm asks nothing.
      await h.service.reconcileApply(proposal.proposal_id);
      expect(h.stub.calls(key)).toHaveLength(4);

      const resumed = value(await h.service.confirm(proposal.proposal_id, "Ada"));
      expect(resumed.status).toBe("applying");
      expect(h.checks).toHaveLength(4);
      await h.service.reconcileApply(proposal.proposal_id);
      expect(value(await h.service.getProposal(proposal.proposal_id)).status).toBe("applied");
      expect(h.stub.applications(key)).toBe(1);
      expect(h.orders.applied.size).toBe(1);
      // Every unanswered call left its own event: none was lost to a repeated id.
      const ids = h.orders.events.map((e) => e.event_id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(steps(h).filter((t) => t === "proposal_apply_unanswered")).toHaveLength(4);
      expect(steps(h)).toContain("proposal_apply_checks_resumed");
    });
  });
});

describe("the idempotency key", () => {
  it("is the same for the same approved change, and differs for another proposal or another change", async () => {
    const base = {
      proposal_id: "prop_a",
      order_id: "ORD-1",
      pinned_version: 3,
      change: { kind: "resolution", action: "escalate_to_human" } as const,
    };
    expect(await applyKey(base)).toBe(await applyKey({ ...base }));
    expect(await applyKey({ ...base, proposal_id: "prop_b" })).not.toBe(await applyKey(base));
    expect(await applyKey({ ...base, pinned_version: 4 })).not.toBe(await applyKey(base));
    expect(await applyKey({ ...base, change: { kind: "resolution", action: "retry_fulfillment" } })).not.toBe(
      await applyKey(base),
    );
  });
});
