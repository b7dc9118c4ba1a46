import { describe, expect, it } from "vitest";
import type { ProposalView } from "../../src/proposals/proposal-schemas";
import type { ProposalService } from "../../src/proposals/proposal-service";
import { APPROVER, address, order, person, TTL_MINUTES, withProposalService } from "../helpers/proposal-service";
import { value } from "../helpers/results";

// The service keeps one open proposal per order and kind: a newer change
// supersedes a pending one, and an approved one blocks rivals until it is
// applied, expires or is overtaken (a fake orders port and an injected clock,
// see test/helpers/proposal-service.ts).

describe("superseding", () => {
  it("a new address change supersedes the order's older pending one, which then says so and cannot be decided or applied", async () => {
    await withProposalService(async ({ service, orders }) => {
      orders.add(order("ORD-1"));
      const first = value(
        await service.propose("address_change", "ORD-1", { address: address("1 Elm St") }, person("Ada")),
      );
      const second = value(
        await service.propose("address_change", "ORD-1", { address: address("2 Oak Ave") }, person("Ada")),
      );

      const older = value(await service.getProposal(first.proposal_id));
      expect(older.status).toBe("superseded");
      expect(older.superseded_by).toBe(second.proposal_id);
      expect(older.status_reason).toBe(`superseded by ${second.proposal_id}, a newer proposal for the same order`);
      expect(orders.events.filter((e) => e.event_type === "proposal_superseded").map((e) => e.proposal_id)).toEqual([
        first.proposal_id,
      ]);

      const decided = await service.decide(first.proposal_id, { decision: "approve", reason: "looks right" }, APPROVER);
      expect(decided).toEqual({
        ok: false,
        error: {
          code: "conflict",
          message: `proposal ${first.proposal_id} was superseded by ${second.proposal_id} for the same order; it will not be decided. Use the newer proposal.`,
        },
      });
      const confirmed = await service.confirm(first.proposal_id, "Ada");
      expect(confirmed.ok).toBe(false);
      expect(value(await service.getProposal(second.proposal_id)).status).toBe("pending_approval");
    });
  });

  it("the change summary tells two address proposals for one order apart", async () => {
    await withProposalService(async ({ service, orders }) => {
      orders.add(order("ORD-1"));
      const first = value(
        await service.propose("address_change", "ORD-1", { address: address("1 Elm St") }, person("Ada")),
      );
      const second = value(
        await service.propose("address_change", "ORD-1", { address: address("2 Oak Ave") }, person("Ada")),
      );
      expect(first.change_summary).toBe("Ship to Test Recipient, 1 Elm St, Springfield, IL 62701, US");
      expect(second.change_summary).toBe("Ship to Test Recipient, 2 Oak Ave, Springfield, IL 62701, US");
    });
  });

  it("asking again for the same change reuses the open proposal instead of superseding it", async () => {
    await withProposalService(async ({ service, orders }) => {
      orders.add(order("ORD-1"));
      const first = value(
        await service.propose("address_change", "ORD-1", { address: address("1 Elm St") }, person("Ada")),
      );
      const again = value(
        await service.propose("address_change", "ORD-1", { address: address("1 elm st") }, person("Ada")),
      );
      expect(again.proposal_id).toBe(first.proposal_id);
      expect(value(await service.getProposal(first.proposal_id)).status).toBe("pending_approval");
    });
  });

  it("a proposal of another kind for the same order is left alone", async () => {
    await withProposalService(async ({ service, orders }) => {
      orders.add(order("ORD-1"));
      const resolution = value(await service.propose("resolution", "ORD-1", {}, person("Ada")));
      value(await service.propose("address_change", "ORD-1", { address: address("1 Elm St") }, person("Ada")));
      expect(value(await service.getProposal(resolution.proposal_id)).status).toBe("pending_approval");
    });
  });

  it("an approved proposal is not superseded: its approver already decided", async () => {
    await withProposalService(async ({ service, orders }) => {
      orders.add(order("ORD-1"));
      const first = value(
        await service.propose("address_change", "ORD-1", { address: address("1 Elm St") }, person("Ada")),
      );
      value(await service.decide(first.proposal_id, { decision: "approve", reason: "checked" }, APPROVER));
      await service.propose("address_change", "ORD-1", { address: address("2 Oak Ave") }, person("Ada"));
      expect(value(await service.getProposal(first.proposal_id)).status).toBe("approved");
    });
  });

  it("a flood of 300 address changes for one order leaves one pending proposal", async () => {
    await withProposalService(async ({ service, orders }) => {
      orders.add(order("ORD-1"));
      let last: ProposalView | undefined;
      for (let i = 0; i < 300; i++)
        last = value(
          await service.propose("address_change", "ORD-1", { address: address(`${i + 1} Flood St`) }, person("Ada")),
        );
      const pending = await service.pending();
      expect(pending.map((p) => p.proposal_id)).toEqual([last?.proposal_id]);
    });
  });
});

describe("an approved proposal that is not applied yet", () => {
  // Approving address change A, then proposing and approving B, would make the
  // second apply answer stale: B is refused while A can still be applied.
  async function approvedAddressChange(
    service: ProposalService,
    orderId: string,
    line1: string,
  ): Promise<ProposalView> {
    const proposal = value(
      await service.propose("address_change", orderId, { address: address(line1) }, person("Ada")),
    );
    return value(
      await service.decide(
        proposal.proposal_id,
        { decision: "approve", reason: "checked with the customer" },
        APPROVER,
      ),
    );
  }

  it("blocks a new proposal of its kind for that order, with a message that names it and says what to do", async () => {
    await withProposalService(async ({ service, orders, store }) => {
      orders.add(order("ORD-1"));
      const approved = await approvedAddressChange(service, "ORD-1", "1 Elm St");
      const eventsBefore = orders.events.length;

      expect(
        await service.propose("address_change", "ORD-1", { address: address("2 Oak Ave") }, person("Ada")),
      ).toEqual({
        ok: false,
        error: {
          code: "conflict",
          message:
            `order ORD-1 already has an approved address change, ${approved.proposal_id} (Ship to Test Recipient, 1 Elm St, Springfield, IL 62701, US), ` +
            `approved by Avery and not applied yet; a second one would conflict with it. ` +
            `Apply it with apply_approved_change if it is still wanted, or let it expire at ${approved.expires_at}, then propose again.`,
        },
      });
      expect(orders.events).toHaveLength(eventsBefore);
      expect(store.byStatus(["pending_approval", "approved"]).map((p) => p.proposal_id)).toEqual([
        approved.proposal_id,
      ]);
    });
  });

  it("so two conflicting address changes can never both be approved, and the approved one still applies", async () => {
    await withProposalService(async ({ service, orders }) => {
      orders.add(order("ORD-1"));
      const approved = await approvedAddressChange(service, "ORD-1", "1 Elm St");
      expect(
        (await service.propose("address_change", "ORD-1", { address: address("2 Oak Ave") }, person("Ada"))).ok,
      ).toBe(false);
      expect((await service.pending()).map((p) => p.proposal_id)).toEqual([approved.proposal_id]);
      expect(value(await service.confirm(approved.proposal_id, "Ada")).status).toBe("applied");
    });
  });

  it("asking again for its exact change answers the approved proposal itself", async () => {
    await withProposalService(async ({ service, orders }) => {
      orders.add(order("ORD-1"));
      const approved = await approvedAddressChange(service, "ORD-1", "1 Elm St");
      const again = value(
        await service.propose("address_change", "ORD-1", { address: address("1 elm st") }, person("Ada")),
      );
      expect(again).toMatchObject({ proposal_id: approved.proposal_id, status: "approved" });
    });
  });

  it("stops blocking once applied, expired or overtaken by another change to the order", async () => {
    await withProposalService(async ({ service, orders, advance }) => {
      for (const id of ["ORD-1", "ORD-2", "ORD-3"]) orders.add(order(id));
      value(await service.confirm((await approvedAddressChange(service, "ORD-1", "1 Elm St")).proposal_id, "Ada"));
      expect(
        value(await service.propose("address_change", "ORD-1", { address: address("2 Oak Ave") }, person("Ada")))
          .status,
      ).toBe("pending_approval");

      await approvedAddressChange(service, "ORD-2", "1 Elm St");
      orders.bump("ORD-2");
      expect(
        value(await service.propose("address_change", "ORD-2", { address: address("2 Oak Ave") }, person("Ada")))
          .status,
      ).toBe("pending_approval");

      const waiting = await approvedAddressChange(service, "ORD-3", "1 Elm St");
      advance(TTL_MINUTES);
      expect(
        value(await service.propose("address_change", "ORD-3", { address: address("2 Oak Ave") }, person("Ada")))
          .status,
      ).toBe("pending_approval");
      expect(value(await service.getProposal(waiting.proposal_id)).status).toBe("expired");
    });
  });

  it("does not block a proposal of the other kind; asking again for the approved resolution answers it", async () => {
    await withProposalService(async ({ service, orders }) => {
      orders.add(order("ORD-1"));
      const resolution = value(await service.propose("resolution", "ORD-1", {}, person("Ada")));
      value(await service.decide(resolution.proposal_id, { decision: "approve", reason: "escalate it" }, APPROVER));
      expect(
        value(await service.propose("address_change", "ORD-1", { address: address("2 Oak Ave") }, person("Ada")))
          .status,
      ).toBe("pending_approval");
      // At one order version the playbook always picks the same action, so this is the approved proposal itself.
      expect(value(await service.propose("resolution", "ORD-1", {}, person("Ada"))).proposal_id).toBe(
        resolution.proposal_id,
      );
    });
  });
});
