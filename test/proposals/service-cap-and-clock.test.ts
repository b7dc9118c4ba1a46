import { describe, expect, it } from "vitest";
import { alreadyAppliedMessage, appliedMessage } from "../../src/proposals/sentences";
import { APPROVER, order, person, TTL_MINUTES, withProposalService } from "../helpers/proposal-service";
import { value } from "../helpers/results";

// The proposal service's open-proposal cap, its queue-free reads and the states it derives
// from the clock and the order's version (a fake orders port and an injected
// clock, see test/helpers/proposal-service.ts).

describe("the open-proposal cap", () => {
  it("refuses a proposal over the cap with a readable message, and counts only proposals still open", async () => {
    await withProposalService(
      async ({ service, orders, advance }) => {
        for (const id of ["ORD-1", "ORD-2", "ORD-3", "ORD-4"]) orders.add(order(id));
        const first = value(await service.propose("resolution", "ORD-1", {}, person("Ada")));
        advance(1);
        const second = value(await service.propose("resolution", "ORD-2", {}, person("Ada")));
        value(await service.decide(second.proposal_id, { decision: "approve", reason: "checked" }, APPROVER));
        expect(await service.propose("resolution", "ORD-3", {}, person("Ada"))).toEqual({
          ok: false,
          error: {
            code: "conflict",
            message:
              "this account already has 2 open proposals (1 waiting for approval, 1 approved but not applied), and MAX_OPEN_PROPOSALS allows 2; " +
              `ask an approver to decide the waiting ones, apply the approved ones, or wait until the first expires at ${first.expires_at}, then propose again`,
          },
        });
        advance(TTL_MINUTES);
        expect(value(await service.propose("resolution", "ORD-3", {}, person("Ada"))).status).toBe("pending_approval");
      },
      { maxOpen: 2 },
    );
  });

  it("does not count a proposal whose order has moved on: it can never be approved, and the approver's list leaves it out too", async () => {
    await withProposalService(
      async ({ service, orders }) => {
        for (const id of ["ORD-1", "ORD-2", "ORD-3"]) orders.add(order(id));
        value(await service.propose("resolution", "ORD-1", {}, person("Ada")));
        value(await service.propose("resolution", "ORD-2", {}, person("Ada")));
        orders.bump("ORD-1");
        expect((await service.pending()).map((p) => p.order_id)).toEqual(["ORD-2"]);
        expect(value(await service.propose("resolution", "ORD-3", {}, person("Ada"))).status).toBe("pending_approval");
        expect((await service.propose("resolution", "ORD-1", {}, person("Ada"))).ok).toBe(false);
      },
      { maxOpen: 2 },
    );
  });

  it("a refused proposal records nothing", async () => {
    await withProposalService(
      async ({ service, orders }) => {
        orders.add(order("ORD-1"));
        orders.add(order("ORD-2"));
        value(await service.propose("resolution", "ORD-1", {}, person("Ada")));
        const eventsBefore = orders.events.length;
        expect((await service.propose("resolution", "ORD-2", {}, person("Ada"))).ok).toBe(false);
        expect(orders.events).toHaveLength(eventsBefore);
      },
      { maxOpen: 1 },
    );
  });
});

describe("reading without waiting", () => {
  it("the pending list goes through no queue, reads the versions once and writes nothing", async () => {
    await withProposalService(async ({ service, orders, store, queued }) => {
      for (const id of ["ORD-1", "ORD-2", "ORD-3"]) orders.add(order(id));
      for (const id of ["ORD-1", "ORD-2", "ORD-3"]) value(await service.propose("resolution", id, {}, person("Ada")));
      orders.bump("ORD-2");
      const before = JSON.stringify(store.byStatus(["pending_approval", "approved", "stale", "expired"]));
      const queuedBefore = queued();
      const readsBefore = orders.versionReads;

      const pending = await service.pending();

      expect(pending.map((p) => p.order_id).sort()).toEqual(["ORD-1", "ORD-3"]);
      expect(queued()).toBe(queuedBefore);
      expect(orders.versionReads).toBe(readsBefore + 1);
      expect(JSON.stringify(store.byStatus(["pending_approval", "approved", "stale", "expired"]))).toBe(before);
    });
  });

  it("get_proposal goes through no queue either", async () => {
    await withProposalService(async ({ service, orders, queued }) => {
      orders.add(order("ORD-1"));
      const proposal = value(await service.propose("resolution", "ORD-1", {}, person("Ada")));
      const queuedBefore = queued();
      expect(value(await service.getProposal(proposal.proposal_id)).status).toBe("pending_approval");
      expect(queued()).toBe(queuedBefore);
    });
  });
});

describe("derived states, with an injected clock", () => {
  it("a proposal expires when its window closes, and says when", async () => {
    await withProposalService(async ({ service, orders, advance }) => {
      orders.add(order("ORD-1"));
      const proposal = value(await service.propose("resolution", "ORD-1", {}, person("Ada")));
      advance(TTL_MINUTES - 1);
      expect(value(await service.getProposal(proposal.proposal_id)).status).toBe("pending_approval");
      advance(1);
      const expired = value(await service.getProposal(proposal.proposal_id));
      expect(expired.status).toBe("expired");
      expect(expired.status_reason).toBe(`the approval window closed at ${proposal.expires_at}`);
      expect(await service.pending()).toEqual([]);
      // The expiry is a step of the trail (and so a webhook), recorded once however often it is read.
      await service.getProposal(proposal.proposal_id);
      const expiries = orders.events.filter((e) => e.event_type === "proposal_expired");
      expect(expiries.map((e) => [e.event_id, e.actor_kind])).toEqual([[`${proposal.proposal_id}:expired`, "system"]]);
    });
  });

  it("a stale proposal says which versions the order moved between", async () => {
    await withProposalService(async ({ service, orders }) => {
      orders.add(order("ORD-1"));
      const proposal = value(await service.propose("resolution", "ORD-1", {}, person("Ada")));
      orders.bump("ORD-1");
      const stale = value(await service.getProposal(proposal.proposal_id));
      expect(stale.status).toBe("stale");
      expect(stale.status_reason).toBe("order ORD-1 moved from version 1 to 2 after this proposal was made");
    });
  });

  it("an approved proposal is applied once through the port, and the second confirm answers the stored outcome", async () => {
    await withProposalService(async ({ service, orders }) => {
      orders.add(order("ORD-1"));
      const proposal = value(await service.propose("resolution", "ORD-1", {}, person("Ada")));
      value(await service.decide(proposal.proposal_id, { decision: "approve", reason: "checked" }, APPROVER));
      const first = value(await service.confirm(proposal.proposal_id, "Ada"));
      const second = value(await service.confirm(proposal.proposal_id, "Ada"));
      expect(first.status).toBe("applied");
      expect(first.message).toBe(appliedMessage(first));
      expect(second).toEqual({ ...first, message: alreadyAppliedMessage(first) });
      expect(second.message).toBe(
        `${first.action} was already applied to ORD-1 at ${first.outcome?.applied_at}; this call changed nothing`,
      );
      expect(orders.applied.size).toBe(1);
    });
  });
});
