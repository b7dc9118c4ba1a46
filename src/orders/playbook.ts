/**
 * The allowlisted resolution playbook: which action the server picks for an
 * order's active exception, and why. The caller cannot pick another. What
 * each action does to the order is the resolution kind's (kinds/resolution.ts).
 */
import { z } from "zod/v4";
import type { Risk } from "../core/risk";
import type { ExceptionType } from "./evidence";
import { fulfillmentEvent } from "./labels";
import type { OrderRecord } from "./order-record";

export const ResolutionActionSchema = z.enum([
  "cancel_duplicate_order",
  "release_inventory_hold_and_cancel_order",
  "notify_customer_backorder",
  "retry_fulfillment",
  "escalate_to_human",
]);
export type ResolutionAction = z.infer<typeof ResolutionActionSchema>;

interface PlaybookEntry {
  readonly action: ResolutionAction;
  readonly risk: Risk;
  readonly rationale: string;
}

const PLAYBOOK: Partial<Record<ExceptionType, PlaybookEntry>> = {
  duplicate_order: {
    action: "cancel_duplicate_order",
    risk: "high",
    rationale:
      "The order duplicates an earlier one; cancelling the later copy refunds the customer's double charge and frees its stock.",
  },
  payment_declined_inventory_held: {
    action: "release_inventory_hold_and_cancel_order",
    risk: "high",
    rationale:
      "Payment was declined, but stock is still held for the order; releasing the hold and cancelling returns the units to sale.",
  },
  fulfillment_hold_missing_sku: {
    action: "notify_customer_backorder",
    risk: "medium",
    rationale:
      "A SKU on the order has no stock anywhere; telling the customer it is backordered sets expectations while it is restocked.",
  },
  fulfillment_incomplete_carrier_timeout: {
    action: "retry_fulfillment",
    risk: "medium",
    rationale:
      "Part of the order never left because the carrier's label request timed out; resubmitting the remaining shipment completes it.",
  },
};

const ESCALATION: PlaybookEntry = {
  action: "escalate_to_human",
  risk: "low",
  rationale: "No automatic action is allowlisted for this exception; a human specialist has to decide.",
};

export const HUMAN_ESCALATION_TEAM = "Escalations (human review)";

interface ResolutionPlan extends PlaybookEntry {
  readonly evidence: string[];
}

function describeEvidence(order: OrderRecord): string[] {
  const evidence = order.evidence;
  const facts: string[] = [];
  if (order.exception)
    facts.push(
      `${order.exception.type} (${order.exception.priority}, ${order.exception.team}): ${order.exception.summary}`,
    );
  if (!evidence) return facts;
  const declines = evidence.payment.attempts.filter((a) => a.outcome === "declined");
  if (declines.length > 0)
    facts.push(
      `payment declined ${declines.length === 1 ? "once" : declines.length === 2 ? "twice" : `${declines.length} times`}: ${declines.map((d) => d.decline_code ?? "unknown").join(", ")}`,
    );
  for (const allocation of evidence.inventory.allocations) {
    if (allocation.state !== "allocated" && allocation.state !== "shipped") {
      facts.push(`${allocation.sku} x${allocation.quantity} is ${allocation.state} in ${allocation.warehouse}`);
    }
  }
  if (evidence.duplicate)
    facts.push(`duplicate of ${evidence.duplicate.of_order_id}: ${evidence.duplicate.signals.join("; ")}`);
  facts.push(
    `fulfillment ${evidence.fulfillment.state}: ${fulfillmentEvent(evidence.fulfillment.state, evidence.fulfillment.last_event)}`,
  );
  return facts;
}

/** The playbook's choice for an order with an active exception; the caller cannot pick another. */
export function planResolution(order: OrderRecord): ResolutionPlan | undefined {
  if (order.exception?.state !== "active") return undefined;
  const entry = PLAYBOOK[order.exception.type] ?? ESCALATION;
  return { ...entry, evidence: describeEvidence(order) };
}
