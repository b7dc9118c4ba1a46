import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ConfirmResult, ProposalView } from "../../src/proposals/proposal-schemas";
import { appliedMessage } from "../../src/proposals/sentences";
import { insertFreshOrder, readRow } from "../helpers/fresh-orders";
import { CLIENT_GENERATIONS, type McpTestClient } from "../helpers/mcp-client";
import {
  ACME_APPROVER,
  approve,
  auditLog,
  callError,
  callOk,
  confirm,
  decide,
  details,
  expectWellFormed,
  ORDER_NOT_FOUND,
} from "../helpers/ops";
import { expectInvariantsHold } from "../helpers/orders";
import { countAuditEvents, countProposalEvents } from "../helpers/rows";
import { ACME_SECOND_APPROVER_TOKEN, ACME_TOKEN } from "../helpers/tokens";

// Over both protocol eras: the v1 client at 2025-11-25 and the v2 client at 2026-07-28.
describe.each(CLIENT_GENERATIONS)("$label", (generation) => {
  // cancel_order, the third kind of change, through MCP: proposed with a
  // reason, refused for what cannot be cancelled (the same not-found as an
  // unknown order for another account's), approved by a person (two above
  // FOUR_EYES_OVER_CENTS, $1,000 in the tests) and applied once by
  // apply_approved_change, with its audit event.

  const REASON = "customer asked to cancel by email";
  let acme: McpTestClient;

  beforeAll(async () => {
    acme = await generation.connect(ACME_TOKEN, "cancel-order");
  });
  afterAll(async () => {
    await expectInvariantsHold();
    await acme.close();
  });

  const cancel = (orderId: string) => callOk<ProposalView>(acme, "cancel_order", { order_id: orderId, reason: REASON });

  describe("cancel_order refuses, and writes nothing", () => {
    it.each(["shipped", "delivered", "partially_shipped"] as const)("an order that is %s", async (status) => {
      const orderId = await insertFreshOrder({ exception: null, status });
      const state = `is ${status}`;
      const before = await readRow("acme", orderId);
      const events = await countAuditEvents("acme", orderId);
      expect(await callError(acme, "cancel_order", { order_id: orderId, reason: REASON })).toBe(
        `order ${orderId} ${state}, so it can no longer be cancelled: what has left the warehouse comes back as a return`,
      );
      expect(await readRow("acme", orderId)).toEqual(before);
      expect(await countAuditEvents("acme", orderId)).toBe(events);
    });

    it("an order that is already cancelled", async () => {
      const orderId = await insertFreshOrder({ exception: null, status: "cancelled" });
      expect(await callError(acme, "cancel_order", { order_id: orderId, reason: REASON })).toBe(
        `order ${orderId} is already cancelled; there is nothing to cancel`,
      );
      expect(await countAuditEvents("acme", orderId)).toBe(1);
    });

    it("another account's order, exactly as an unknown one", async () => {
      const globex = await insertFreshOrder({ account: "globex", exception: null });
      const before = await readRow("globex", globex);
      expect(await callError(acme, "cancel_order", { order_id: globex, reason: REASON })).toBe(ORDER_NOT_FOUND);
      expect(await callError(acme, "cancel_order", { order_id: "ORD-9999", reason: REASON })).toBe(ORDER_NOT_FOUND);
      expect(await readRow("globex", globex)).toEqual(before);
    });

    it("without a reason", async () => {
      const orderId = await insertFreshOrder({ exception: null });
      expect(await callError(acme, "cancel_order", { order_id: orderId, reason: " " })).toMatch(/reason/);
      expect(await countAuditEvents("acme", orderId)).toBe(1);
    });
  });

  describe("a cancellation approved, then applied", () => {
    let orderId: string;
    let proposal: ProposalView;
    let applied: ConfirmResult;

    beforeAll(async () => {
      orderId = await insertFreshOrder({ exception: null, paymentState: "captured" });
      proposal = await cancel(orderId);
      await approve(proposal.proposal_id, "the customer asked us by email");
      applied = await confirm(acme, proposal.proposal_id, "apply_approved_change");
    });

    it("is an inert proposal of its own kind, pinning the refund it will make", () => {
      expectWellFormed(proposal, orderId);
      expect(proposal).toMatchObject({
        kind: "cancel_order",
        action: "cancel_order",
        change: { kind: "cancel_order", action: "cancel_order" },
        change_summary: "Cancel the order before it ships",
        risk: "high",
        approvals_required: 1,
      });
      expect(proposal.rationale).toContain(REASON);
      expect(proposal.expected_changes).toContainEqual({ field: "payment", before: "captured", after: "refunded" });
      expect(proposal.expected_changes).toContainEqual({ field: "status", before: "processing", after: "cancelled" });
    });

    it("is applied once: the order is cancelled and refunded, with one cancellation_applied event", async () => {
      expect(applied).toMatchObject({
        status: "applied",
        message: appliedMessage({ action: "cancel_order", order_id: orderId }),
      });
      expect(applied.outcome?.approved_by).toBe(ACME_APPROVER);
      const order = await details(acme, orderId);
      expect(order.status).toBe("cancelled");
      expect(order.payment?.state).toBe("refunded");
      expect(order.inventory?.allocations.every((a) => a.state === "released")).toBe(true);
      const again = await confirm(acme, proposal.proposal_id, "apply_approved_change");
      expect(again.outcome).toEqual(applied.outcome);
      expect(await countProposalEvents(proposal.proposal_id, "cancellation_applied")).toBe(1);
      const events = (await auditLog(acme, orderId)).events.filter((e) => e.proposal_id === proposal.proposal_id);
      expect(events.map((e) => e.event_type)).toEqual([
        "proposal_created",
        "proposal_approved",
        "cancellation_applied",
      ]);
    });

    it("a second cancellation of the now cancelled order is refused", async () => {
      expect(await callError(acme, "cancel_order", { order_id: orderId, reason: REASON })).toBe(
        `order ${orderId} is already cancelled; there is nothing to cancel`,
      );
    });
  });

  describe("four eyes", () => {
    it("a cancellation that refunds FOUR_EYES_OVER_CENTS or more needs two approvers", async () => {
      const orderId = await insertFreshOrder({ exception: null, paymentState: "captured", totalCents: 250_000 });
      const proposal = await cancel(orderId);
      expect(proposal.approvals_required).toBe(2);
      expect(proposal.second_approver_reason).toBe(
        "it moves $2500.00 of the customer's money, at or above the $1000.00 (FOUR_EYES_OVER_CENTS) that needs two approvers",
      );
      const first = await decide(proposal.proposal_id, "approve", "the customer asked");
      expect(((await first.json()) as { proposal: ProposalView }).proposal.approvals).toHaveLength(1);
      const waiting = await confirm(acme, proposal.proposal_id, "apply_approved_change");
      expect(waiting.status).toBe("approval_required");
      await approve(proposal.proposal_id, "confirmed with the customer too", ACME_SECOND_APPROVER_TOKEN);
      expect((await confirm(acme, proposal.proposal_id, "apply_approved_change")).status).toBe("applied");
    });
  });
});
