import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { approvalRequired, movedOn, refusal } from "../../src/proposals/sentences";
import { insertFreshOrder, readRow } from "../helpers/fresh-orders";
import { CLIENT_GENERATIONS, type McpTestClient } from "../helpers/mcp-client";
import {
  ACME_APPROVER,
  approve,
  callError,
  callTool,
  confirm,
  decide,
  expireProposal,
  getProposal,
  prepareAddress,
  proposalFor,
  propose,
  RIVER_ROAD_ADDRESS,
  reject,
} from "../helpers/ops";
import { type ErrorBody, expectInvariantsHold } from "../helpers/orders";
import { countApplied, countAuditEvents, countProposalEvents } from "../helpers/rows";
import { ACME_TOKEN } from "../helpers/tokens";
import { wire } from "../helpers/tool-results";

// Over both protocol eras: the v1 client at 2025-11-25 and the v2 client at 2026-07-28.
describe.each(CLIENT_GENERATIONS)("$label", (generation) => {
  // confirm_resolution / apply_approved_change refuse to write: before a human
  // approves, and for stale, expired and rejected proposals.

  let acme: McpTestClient;
  let acme2: McpTestClient;

  beforeAll(async () => {
    [acme, acme2] = await Promise.all([
      generation.connect(ACME_TOKEN, "confirm-1"),
      generation.connect(ACME_TOKEN, "confirm-2"),
    ]);
  });
  afterAll(async () => {
    await expectInvariantsHold();
    await Promise.all([acme.close(), acme2.close()]);
  });

  describe("before approval", () => {
    // Each apply tool with a proposal of its own kinds: another kind's is refused by name (test/mcp/apply-tools.test.ts).
    const ownProposal = {
      confirm_resolution: () => proposalFor(acme, "duplicate_order"),
      apply_approved_change: async () => {
        const orderId = await insertFreshOrder({ exception: null });
        return { orderId, proposal: await prepareAddress(acme, orderId, RIVER_ROAD_ADDRESS) };
      },
    };
    it.each(["confirm_resolution", "apply_approved_change"] as const)(
      "%s answers approval_required and writes nothing",
      async (tool) => {
        const { orderId, proposal } = await ownProposal[tool]();
        const rowBefore = await readRow("acme", orderId);
        const eventsBefore = await countAuditEvents("acme", orderId);

        const result = await confirm(acme, proposal.proposal_id, tool);
        expect(result).toEqual({
          status: "approval_required",
          proposal_id: proposal.proposal_id,
          order_id: orderId,
          action: proposal.action,
          message: approvalRequired(proposal, proposal.approval_url),
          approval_url: proposal.approval_url,
          expires_at: proposal.expires_at,
          outcome: null,
        });

        expect(await readRow("acme", orderId)).toEqual(rowBefore);
        expect(await countAuditEvents("acme", orderId)).toBe(eventsBefore);
        expect(await countApplied(proposal.proposal_id)).toBe(0);
        expect((await getProposal(acme, proposal.proposal_id)).status).toBe("pending_approval");
      },
    );

    it("asking many times changes nothing either", async () => {
      const { orderId, proposal } = await proposalFor(acme, "payment_declined_inventory_held");
      const rowBefore = await readRow("acme", orderId);
      const results = await Promise.all(Array.from({ length: 5 }, () => confirm(acme, proposal.proposal_id)));
      expect(new Set(results.map((r) => r.status))).toEqual(new Set(["approval_required"]));
      expect(await readRow("acme", orderId)).toEqual(rowBefore);
      expect(await countAuditEvents("acme", orderId)).toBe(2); // the fixture's origin event and proposal_created
    });
  });

  describe("stale proposals", () => {
    it("two approved proposals on one order: the first applies, the second answers stale and writes nothing", async () => {
      const orderId = await insertFreshOrder({ exception: "fraud_review" });
      const resolution = await propose(acme, orderId);
      const address = await prepareAddress(acme, orderId, RIVER_ROAD_ADDRESS);
      await approve(resolution.proposal_id);
      await approve(address.proposal_id);
      // A second address change cannot join them: it would conflict with the approved one.
      const conflicting = await callTool(acme, "prepare_address_change", {
        order_id: orderId,
        address: { ...RIVER_ROAD_ADDRESS, line2: "Unit 9" },
      });
      expect(conflicting.isError).toBe(true);
      expect(JSON.stringify(conflicting.content)).toContain(
        `already has an approved address change, ${address.proposal_id}`,
      );

      const applied = await confirm(acme, address.proposal_id, "apply_approved_change");
      expect(applied.status).toBe("applied");
      const rowAfterFirst = await readRow("acme", orderId);
      expect(rowAfterFirst.version).toBe(2);

      const staleResult = await callTool(acme, "confirm_resolution", { proposal_id: resolution.proposal_id });
      expect(staleResult.structuredContent).toEqual({
        status: "stale",
        proposal_id: resolution.proposal_id,
        order_id: orderId,
        action: "escalate_to_human",
        message: refusal({ ...resolution, status: "stale", status_reason: movedOn(resolution, 2) }, "applied"),
        approval_url: resolution.approval_url,
        expires_at: resolution.expires_at,
        outcome: null,
      });
      expect(await readRow("acme", orderId)).toEqual(rowAfterFirst);
      expect(await countApplied(resolution.proposal_id)).toBe(0);
      expect(await countProposalEvents(resolution.proposal_id, "resolution_applied")).toBe(0);
      expect((await getProposal(acme, resolution.proposal_id)).status).toBe("stale");

      // Asking again stays stale, byte for byte.
      expect(wire(await callTool(acme2, "confirm_resolution", { proposal_id: resolution.proposal_id }))).toBe(
        wire(staleResult),
      );

      // A fresh proposal pins the new version.
      const renewed = await propose(acme, orderId);
      expect(renewed.proposal_id).not.toBe(resolution.proposal_id);
      expect(renewed.pinned_version).toBe(2);
    });

    it("a pending proposal of the old version can no longer be approved once another change is applied", async () => {
      const orderId = await insertFreshOrder({ exception: "fraud_review" });
      const pending = await propose(acme, orderId);
      const address = await prepareAddress(acme, orderId, RIVER_ROAD_ADDRESS);
      await approve(address.proposal_id);
      expect((await confirm(acme, address.proposal_id, "apply_approved_change")).status).toBe("applied");
      const rowAfter = await readRow("acme", orderId);

      const late = await decide(pending.proposal_id, "approve", "too late now");
      expect(late.status).toBe(409);
      expect(((await late.json()) as ErrorBody).message).toBe(
        refusal({ ...pending, status: "stale", status_reason: movedOn(pending, 2) }, "decided"),
      );
      expect((await getProposal(acme, pending.proposal_id)).status).toBe("stale");
      expect(await readRow("acme", orderId)).toEqual(rowAfter);
    });
  });

  describe("expired proposals", () => {
    it("a pending proposal past its expiry cannot be approved (409) or confirmed, and nothing is written but the expiry's one event", async () => {
      const { orderId, proposal } = await proposalFor(acme, "payment_declined_inventory_held");
      const expiredAt = await expireProposal("acme", proposal.proposal_id);
      const rowBefore = await readRow("acme", orderId);
      const eventsBefore = await countAuditEvents("acme", orderId);

      const approval = await decide(proposal.proposal_id, "approve", "approving after the deadline");
      expect(approval.status).toBe(409);
      const body = (await approval.json()) as ErrorBody;
      expect(body.code).toBe("conflict");
      expect(body.message).toBe(refusal({ ...proposal, status: "expired", expires_at: expiredAt }, "decided"));

      const message = await callError(acme, "confirm_resolution", { proposal_id: proposal.proposal_id });
      expect(message).toContain("expired");
      expect(message).toBe(refusal({ ...proposal, status: "expired", expires_at: expiredAt }, "applied"));

      expect(await readRow("acme", orderId)).toEqual(rowBefore);
      expect(await countAuditEvents("acme", orderId)).toBe(eventsBefore + 1);
      expect(await countAuditEvents("acme", orderId, "proposal_expired")).toBe(1);
      expect(await countApplied(proposal.proposal_id)).toBe(0);
      expect((await getProposal(acme, proposal.proposal_id)).status).toBe("expired");
    });

    it("an approved proposal that expired before confirmation is refused and nothing is written", async () => {
      const { orderId, proposal } = await proposalFor(acme, "fulfillment_hold_missing_sku");
      await approve(proposal.proposal_id);
      await expireProposal("acme", proposal.proposal_id, 5);
      const rowBefore = await readRow("acme", orderId);
      const message = await callError(acme, "confirm_resolution", { proposal_id: proposal.proposal_id });
      expect(message).toContain("expired");
      expect(await readRow("acme", orderId)).toEqual(rowBefore);
      expect(await countApplied(proposal.proposal_id)).toBe(0);
      expect(await countAuditEvents("acme", orderId, "resolution_applied")).toBe(0);
    });

    it("an expired proposal no longer counts as open: asking again opens a new one", async () => {
      const { orderId, proposal } = await proposalFor(acme, "fraud_review");
      await expireProposal("acme", proposal.proposal_id);
      const renewed = await propose(acme, orderId);
      expect(renewed.proposal_id).not.toBe(proposal.proposal_id);
      expect(renewed.status).toBe("pending_approval");
    });
  });

  describe("rejected proposals", () => {
    it("confirm is refused, naming who rejected it and why; nothing is written", async () => {
      const { orderId, proposal } = await proposalFor(acme, "duplicate_order");
      await reject(proposal.proposal_id, "customer wants both orders");
      const rowBefore = await readRow("acme", orderId);
      const eventsBefore = await countAuditEvents("acme", orderId);
      for (const tool of ["confirm_resolution"]) {
        const message = await callError(acme, tool, { proposal_id: proposal.proposal_id });
        expect(message).toContain("rejected");
        expect(message).toBe(
          refusal(
            {
              ...proposal,
              status: "rejected",
              decided_by: ACME_APPROVER,
              decision_reason: "customer wants both orders",
            },
            "applied",
          ),
        );
      }
      expect(await readRow("acme", orderId)).toEqual(rowBefore);
      expect(await countAuditEvents("acme", orderId)).toBe(eventsBefore);
      expect(await countApplied(proposal.proposal_id)).toBe(0);
    });
  });
});
