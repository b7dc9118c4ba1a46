/**
 * A cancellation: cancel an order that has not shipped, releasing its stock
 * and giving back the customer's money (a captured payment refunded in full,
 * an authorization voided). Proposed by cancel_order with the reason it is
 * wanted; applied by apply_approved_change. It moves money, so four eyes
 * applies from FOUR_EYES_OVER_CENTS.
 */
import { z } from "zod/v4";
import { fail, ok } from "../../core/errors";
import { readableText } from "../../core/free-text";
import type { Evidence } from "../evidence";
import type { OrderRecord } from "../order-record";
import { refundOrVoid, releaseHeld, resolved, returnPayment, withTimeline } from "./effects";
import { APPLY_APPROVED_CHANGE, defineChangeKind } from "./kind";

const CancellationSchema = z.object({ kind: z.literal("cancel_order"), action: z.literal("cancel_order") });

/** Statuses an order has once something of it left the warehouse: it comes back as a return, not a cancellation. */
const SHIPPED_STATUSES: ReadonlySet<string> = new Set(["shipped", "partially_shipped", "delivered"]);

/** Why this order cannot be cancelled, or undefined when it can. */
function cannotCancel(order: OrderRecord): string | undefined {
  const id = order.order_id;
  if (order.status === "cancelled") return `order ${id} is already cancelled; there is nothing to cancel`;
  const shipped = `so it can no longer be cancelled: what has left the warehouse comes back as a return`;
  if (SHIPPED_STATUSES.has(order.status)) return `order ${id} is ${order.status}, ${shipped}`;
  if (order.evidence?.inventory.allocations.some((a) => a.state === "shipped"))
    return `part of order ${id} has already shipped, ${shipped}`;
  return undefined;
}

/** What happens to the customer's money, in a few words: the timeline's and the rationale's. */
function moneyWords(payment: string | undefined): string {
  if (payment === "captured") return "the captured payment is refunded in full";
  if (payment === "authorized") return "the card authorization is voided";
  return "nothing was charged, so nothing is refunded";
}

function evidenceLines(order: OrderRecord, evidence: Evidence | null, reason: string): string[] {
  const reserved = (evidence?.inventory.allocations ?? []).filter(
    (a) => a.state === "allocated" || a.state === "held" || a.state === "missing",
  );
  return [
    `order ${order.order_id} is ${order.status} at version ${order.version}, and nothing of it has shipped`,
    evidence ? `payment ${evidence.payment.state}` : "the order carries no payment evidence",
    ...reserved.map((a) => `${a.sku} x${a.quantity} is ${a.state} in ${a.warehouse}; it goes back to stock`),
    ...(evidence ? [`fulfillment ${evidence.fulfillment.state}: ${evidence.fulfillment.last_event}`] : []),
    `reason given: ${reason}`,
  ];
}

export const cancelOrder = defineChangeKind({
  name: "cancel_order",
  change: CancellationSchema,
  noun: "cancellation",
  actions: {
    cancel_order: { label: "Cancel order", money: refundOrVoid("the order was charged and has not shipped") },
  },
  summary: () => "Cancel the order before it ships",
  appliedEvent: "cancellation_applied",
  proposeTool: {
    name: "cancel_order",
    title: "Propose cancelling an order",
    description:
      "Creates an inert proposal to cancel an order of your account that has not shipped. Applied, it cancels the order, returns its reserved stock to sale and refunds a captured payment in full (voids an authorization). Asking again for the same order returns the same open proposal.",
    input: {
      reason: readableText(z.string().trim().min(3, "give a reason of at least 3 characters").max(300)).describe(
        "Why, e.g. 'customer asked by email'; the approver reads it",
      ),
    },
  },
  applyTool: APPLY_APPROVED_CHANGE,
  propose(order, { reason }) {
    const refused = cannotCancel(order);
    if (refused) return fail("conflict", refused);
    return ok({
      change: { kind: "cancel_order", action: "cancel_order" },
      plan: {
        risk: "high",
        rationale: `Cancel order ${order.order_id} before it ships (${reason}): its reserved stock goes back to sale and ${moneyWords(order.evidence?.payment.state)}.`,
        evidence: evidenceLines(order, order.evidence, reason),
      },
    });
  },
  apply(order, _change, at) {
    const exception = order.exception?.state === "active" ? resolved(order, "resolved") : order.exception;
    const evidence = order.evidence;
    if (!evidence) return { ...order, status: "cancelled", exception };
    const next: Evidence = {
      ...evidence,
      payment: returnPayment(order, evidence, at),
      inventory: releaseHeld(evidence),
      fulfillment: { ...evidence.fulfillment, state: "cancelled", last_event: "cancelled before shipping" },
    };
    const detail = `cancelled before shipping: stock released and ${moneyWords(evidence.payment.state)}`;
    return { ...order, status: "cancelled", evidence: withTimeline(next, at, "order_cancelled", detail), exception };
  },
});
