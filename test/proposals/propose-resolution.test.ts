import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultPersonId } from "../../src/config/token-maps";
import { insertFreshOrder, readRow } from "../helpers/fresh-orders";
import { CLIENT_GENERATIONS, type McpTestClient } from "../helpers/mcp-client";
import {
  ACME_APPROVER,
  approve,
  callError,
  expectWellFormed,
  getProposal,
  propose,
  reject,
  storedProposal,
  unknownProposalId,
} from "../helpers/ops";
import { countAuditEvents } from "../helpers/rows";
import { ACME_APPROVER_TOKEN, ACME_TOKEN } from "../helpers/tokens";

// Over both protocol eras: the v1 client at 2025-11-25 and the v2 client at 2026-07-28.
describe.each(CLIENT_GENERATIONS)("$label", (generation) => {
  // propose_resolution and get_proposal: a proposal is inert (creating one
  // writes an audit event and nothing else), and asking again for the same
  // change returns the same proposal.

  let acme: McpTestClient;

  beforeAll(async () => {
    acme = await generation.connect(ACME_TOKEN, "proposals-acme");
  });
  afterAll(async () => {
    await acme.close();
  });

  describe("propose_resolution", () => {
    it.each([
      ["ORD-1017", "cancel_duplicate_order", "high"],
      ["ORD-1004", "release_inventory_hold_and_cancel_order", "high"],
      ["ORD-1008", "notify_customer_backorder", "medium"],
      ["ORD-1014", "retry_fulfillment", "medium"],
      ["ORD-1011", "escalate_to_human", "low"],
    ])("%s gets %s at %s risk and stays byte-identical in D1", async (orderId, action, risk) => {
      const before = await readRow("acme", orderId);
      const proposal = await propose(acme, orderId);
      expectWellFormed(proposal, orderId);
      expect(proposal).toMatchObject({ kind: "resolution", action, risk, pinned_version: 1 });
      expect(await readRow("acme", orderId)).toEqual(before);
    });

    it("the expected changes spell out every field the action touches (ORD-1004)", async () => {
      const proposal = await propose(acme, "ORD-1004");
      expect(proposal.expected_changes).toEqual([
        { field: "status", before: "payment_failed", after: "cancelled" },
        {
          field: "exception",
          before: "payment_declined_inventory_held active (Payments Ops)",
          after: "payment_declined_inventory_held resolved (Payments Ops)",
        },
        {
          field: "inventory",
          before: "SKU-4415 x2 held (ATL-2); SKU-1180 x1 held (ATL-2)",
          after: "SKU-4415 x2 released (ATL-2); SKU-1180 x1 released (ATL-2)",
        },
        {
          field: "fulfillment",
          before: "blocked: waiting for payment",
          after: "cancelled: cancelled after payment was declined; held stock released",
        },
      ]);
      expect(proposal.evidence).toContain("payment declined twice: insufficient_funds, insufficient_funds");
    });

    it("asking again for the same order at the same version returns the same proposal, and records one proposal_created", async () => {
      const orderId = await insertFreshOrder({ exception: "duplicate_order" });
      const first = await propose(acme, orderId);
      const again = await propose(acme, orderId);
      const third = await propose(acme, orderId);
      expect(again.proposal_id).toBe(first.proposal_id);
      expect(third).toEqual(first);
      expect(await countAuditEvents("acme", orderId, "proposal_created")).toBe(1);
      expect(await countAuditEvents("acme", orderId)).toBe(2); // the fixture's origin event and proposal_created
    });

    it("10 concurrent requests for the same order open one proposal", async () => {
      const orderId = await insertFreshOrder({ exception: "fulfillment_hold_missing_sku" });
      const proposals = await Promise.all(Array.from({ length: 10 }, () => propose(acme, orderId)));
      expect(new Set(proposals.map((p) => p.proposal_id)).size).toBe(1);
      expect(await countAuditEvents("acme", orderId, "proposal_created")).toBe(1);
    });

    it("an approved proposal is still the open one: asking again returns it, approved", async () => {
      const orderId = await insertFreshOrder({ exception: "fraud_review" });
      const first = await propose(acme, orderId);
      await approve(first.proposal_id);
      const again = await propose(acme, orderId);
      expect(again.proposal_id).toBe(first.proposal_id);
      expect(again.status).toBe("approved");
    });

    it("after a rejection, asking again opens a new proposal", async () => {
      const orderId = await insertFreshOrder({ exception: "fraud_review" });
      const first = await propose(acme, orderId);
      await reject(first.proposal_id);
      const second = await propose(acme, orderId);
      expect(second.proposal_id).not.toBe(first.proposal_id);
      expect(second.status).toBe("pending_approval");
      expect(await countAuditEvents("acme", orderId, "proposal_created")).toBe(2);
    });

    it("an order without an exception is refused and nothing is recorded", async () => {
      const before = await readRow("acme", "ORD-1001");
      const eventsBefore = await countAuditEvents("acme", "ORD-1001");
      expect(await callError(acme, "propose_resolution", { order_id: "ORD-1001" })).toBe(
        "order ORD-1001 has no active exception (it has no exception), so there is nothing to resolve",
      );
      expect(await readRow("acme", "ORD-1001")).toEqual(before);
      expect(await countAuditEvents("acme", "ORD-1001")).toBe(eventsBefore);
    });

    it.each(["resolved", "escalated"] as const)("an order whose exception is already %s is refused", async (state) => {
      const orderId = await insertFreshOrder({ exception: "fraud_review", exceptionState: state });
      expect(await callError(acme, "propose_resolution", { order_id: orderId })).toBe(
        `order ${orderId} has no active exception (its exception is already ${state}), so there is nothing to resolve`,
      );
      expect(await countAuditEvents("acme", orderId)).toBe(1); // only the fixture's origin event
    });

    it("the proposal is stored with its pinned change; the view hides it", async () => {
      const orderId = await insertFreshOrder({ exception: "fulfillment_incomplete_carrier_timeout" });
      const proposal = await propose(acme, orderId);
      const stored = await storedProposal("acme", proposal.proposal_id);
      const { approval_url: _url, change_summary: _summary, ...viewWithoutUrl } = proposal;
      expect(stored).toEqual({ ...viewWithoutUrl, change: { kind: "resolution", action: "retry_fulfillment" } });
    });
  });

  describe("get_proposal", () => {
    it("follows a proposal from pending_approval to approved, with who, when and why", async () => {
      const orderId = await insertFreshOrder({ exception: "fraud_review" });
      const proposal = await propose(acme, orderId);
      expect(await getProposal(acme, proposal.proposal_id)).toEqual(proposal);
      await approve(proposal.proposal_id, "fraud team agrees");
      const approved = await getProposal(acme, proposal.proposal_id);
      expect(approved).toEqual({
        ...proposal,
        status: "approved",
        decided_by: ACME_APPROVER,
        decided_at: approved.decided_at,
        decision_reason: "fraud team agrees",
        approvals: [
          {
            approver: ACME_APPROVER,
            approver_id: defaultPersonId(ACME_APPROVER_TOKEN),
            at: approved.decided_at,
            reason: "fraud team agrees",
          },
        ],
      });
      expect(Date.parse(approved.decided_at ?? "")).toBeGreaterThanOrEqual(Date.parse(proposal.created_at));
    });

    it("shows rejected proposals as rejected", async () => {
      const orderId = await insertFreshOrder({ exception: "fraud_review" });
      const proposal = await propose(acme, orderId);
      await reject(proposal.proposal_id, "needs a specialist");
      expect(await getProposal(acme, proposal.proposal_id)).toMatchObject({
        status: "rejected",
        decided_by: ACME_APPROVER,
        decision_reason: "needs a specialist",
        outcome: null,
      });
    });

    it("an unknown proposal id is a tool error", async () => {
      expect(await callError(acme, "get_proposal", { proposal_id: unknownProposalId() })).toBe(
        "proposal not found; proposals are only visible to the account that created them",
      );
    });
  });
});
