/**
 * A resolution: the playbook's fix for an order's active exception
 * (orders/playbook.ts picks the action; the caller cannot). Proposed by
 * propose_resolution, applied by confirm_resolution, the seed-003 workflow.
 */
import { z } from "zod/v4";
import { fail, ok } from "../../core/errors";
import type { Evidence } from "../evidence";
import type { OrderRecord } from "../order-record";
import { HUMAN_ESCALATION_TEAM, planResolution, type ResolutionAction, ResolutionActionSchema } from "../playbook";
import { refundOrVoid, releaseHeld, resolved, returnPayment, withTimeline } from "./effects";
import { defineChangeKind } from "./kind";

const ResolutionChangeSchema = z.object({ kind: z.literal("resolution"), action: ResolutionActionSchema });
type ResolutionChange = z.infer<typeof ResolutionChangeSchema>;

/** Each action in one line, as the approver's page title reads it. */
const SUMMARIES: Readonly<Record<ResolutionAction, string>> = {
  cancel_duplicate_order: "Cancel the duplicate order and refund it",
  release_inventory_hold_and_cancel_order: "Release the held stock and cancel the unpaid order",
  notify_customer_backorder: "Tell the customer the missing item is backordered",
  retry_fulfillment: "Resubmit the remaining shipment to the carrier",
  escalate_to_human: "Hand the order to a human specialist",
};

/** Releasing a declined order's stock cancels it without returning anything: whatever was taken stays taken. */
function cancelsWithoutReturning(payment: string | undefined) {
  if (payment === "captured") return { move: "kept", held: "charged" } as const;
  if (payment === "authorized") return { move: "kept", held: "authorized" } as const;
  return { move: "never_paid" } as const;
}

function cancelDuplicate(order: OrderRecord, evidence: Evidence, at: string): OrderRecord {
  const next: Evidence = {
    ...evidence,
    payment: returnPayment(order, evidence, at),
    inventory: releaseHeld(evidence),
    fulfillment: {
      ...evidence.fulfillment,
      state: "cancelled",
      last_event: `cancelled as a duplicate of ${evidence.duplicate?.of_order_id ?? "an earlier order"}`,
    },
  };
  return {
    ...order,
    status: "cancelled",
    evidence: withTimeline(
      next,
      at,
      "duplicate_cancelled",
      "cancelled the duplicate and returned the customer's money",
    ),
    exception: resolved(order, "resolved"),
  };
}

function releaseAndCancel(order: OrderRecord, evidence: Evidence, at: string): OrderRecord {
  const next: Evidence = {
    ...evidence,
    inventory: releaseHeld(evidence),
    fulfillment: {
      ...evidence.fulfillment,
      state: "cancelled",
      last_event: "cancelled after payment was declined; held stock released",
    },
  };
  return {
    ...order,
    status: "cancelled",
    evidence: withTimeline(next, at, "inventory_released", "released held stock and cancelled the unpaid order"),
    exception: resolved(order, "resolved"),
  };
}

function notifyBackorder(order: OrderRecord, evidence: Evidence, at: string): OrderRecord {
  const missing = evidence.inventory.allocations.filter((a) => a.state === "missing").map((a) => a.sku);
  const next: Evidence = {
    ...evidence,
    inventory: {
      allocations: evidence.inventory.allocations.map((a) =>
        a.state === "missing" ? { ...a, state: "backordered" as const } : a,
      ),
    },
    fulfillment: {
      ...evidence.fulfillment,
      state: "backordered",
      last_event: `customer notified that ${missing.join(", ") || "an item"} is backordered`,
    },
  };
  return {
    ...order,
    status: "backordered",
    evidence: withTimeline(
      next,
      at,
      "customer_notified",
      `backorder notice sent to the customer for ${missing.join(", ") || "the missing item"}`,
    ),
    exception: resolved(order, "resolved"),
  };
}

function retryFulfillment(order: OrderRecord, evidence: Evidence, at: string): OrderRecord {
  const next: Evidence = {
    ...evidence,
    fulfillment: {
      ...evidence.fulfillment,
      state: "retry_submitted",
      last_event: "label request for the remaining shipment resubmitted to the carrier",
    },
  };
  // A parcel that already left keeps the order partially shipped (and its address locked).
  const shippedSomething = evidence.inventory.allocations.some((a) => a.state === "shipped");
  return {
    ...order,
    status: shippedSomething ? "partially_shipped" : "processing",
    evidence: withTimeline(next, at, "fulfillment_retried", "resubmitted the remaining shipment"),
    exception: resolved(order, "resolved"),
  };
}

/** What each action does to an order that has evidence, and the status it takes on one that has none. */
const EFFECTS: Readonly<
  Record<
    Exclude<ResolutionAction, "escalate_to_human">,
    { readonly bare: string; readonly apply: (order: OrderRecord, evidence: Evidence, at: string) => OrderRecord }
  >
> = {
  cancel_duplicate_order: { bare: "cancelled", apply: cancelDuplicate },
  release_inventory_hold_and_cancel_order: { bare: "cancelled", apply: releaseAndCancel },
  notify_customer_backorder: { bare: "backordered", apply: notifyBackorder },
  retry_fulfillment: { bare: "processing", apply: retryFulfillment },
};

export const resolution = defineChangeKind({
  name: "resolution",
  change: ResolutionChangeSchema,
  noun: "resolution",
  actions: {
    cancel_duplicate_order: {
      label: "Cancel duplicate order",
      money: refundOrVoid("the duplicate was charged"),
    },
    release_inventory_hold_and_cancel_order: {
      label: "Release held stock and cancel order",
      money: cancelsWithoutReturning,
    },
    notify_customer_backorder: { label: "Tell customer about backorder", money: null },
    retry_fulfillment: { label: "Resubmit shipment to carrier", money: null },
    escalate_to_human: { label: "Hand to a specialist", money: null },
  },
  summary: (change: ResolutionChange) => SUMMARIES[change.action],
  appliedEvent: "resolution_applied",
  proposeTool: {
    name: "propose_resolution",
    title: "Propose a fix for a stuck order",
    description:
      "Creates an inert proposal to resolve an order's active exception. The server picks the action from an allowlisted playbook (duplicate: cancel_duplicate_order; declined payment with stock held: release_inventory_hold_and_cancel_order; missing SKU: notify_customer_backorder; carrier timeout: retry_fulfillment; anything else, fraud included: escalate_to_human). Asking again for the same order returns the same open proposal.",
    input: {},
  },
  applyTool: { name: "confirm_resolution", title: "Confirm an approved resolution" },
  propose(order) {
    const plan = planResolution(order);
    if (!plan) {
      const state = order.exception ? `its exception is already ${order.exception.state}` : "it has no exception";
      return fail(
        "conflict",
        `order ${order.order_id} has no active exception (${state}), so there is nothing to resolve`,
      );
    }
    return ok({ change: { kind: "resolution", action: plan.action }, plan });
  },
  apply(order, change, at) {
    const evidence = order.evidence;
    if (change.action === "escalate_to_human") {
      return {
        ...order,
        evidence: evidence
          ? withTimeline(evidence, at, "escalated_to_human", `handed to ${HUMAN_ESCALATION_TEAM}`)
          : evidence,
        exception: resolved(order, "escalated", HUMAN_ESCALATION_TEAM),
      };
    }
    const effect = EFFECTS[change.action];
    if (!evidence) return { ...order, status: effect.bare, exception: resolved(order, "resolved") };
    return effect.apply(order, evidence, at);
  },
});
