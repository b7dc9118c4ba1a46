/**
 * The allowlisted resolution playbook. The server, not the caller, picks the
 * action from the order's active exception; each action has a fixed effect on
 * the order, computed here as a pure function so a proposal can show exactly
 * what an apply will write.
 */
import { z } from "zod/v4";
import type { Risk } from "../core/risk";
import { CHANGE_KIND_NAMES } from "./change-kinds";
import { AddressSchema, type Evidence, type ExceptionState, type ExceptionType } from "./evidence";
import type { OrderRecord } from "./order-record";
import { formatAddress } from "./order-state";

const ResolutionActionSchema = z.enum([
  "cancel_duplicate_order",
  "release_inventory_hold_and_cancel_order",
  "notify_customer_backorder",
  "retry_fulfillment",
  "escalate_to_human",
]);
type ResolutionAction = z.infer<typeof ResolutionActionSchema>;

export const ChangeActionSchema = z.enum([...ResolutionActionSchema.options, "change_shipping_address"]);
export type ChangeAction = z.infer<typeof ChangeActionSchema>;

/** The actions that move the customer's money (a refund or a voided hold): the order's total is at stake. */
const MONEY_MOVING_ACTIONS: ReadonlySet<ChangeAction> = new Set([
  "cancel_duplicate_order",
  "release_inventory_hold_and_cancel_order",
]);

export function movesMoney(action: ChangeAction): boolean {
  return MONEY_MOVING_ACTIONS.has(action);
}

/** What a proposal changes: the playbook's resolution, or the shipping address (see change-kinds.ts). */
export const ChangeKindSchema = z.enum(CHANGE_KIND_NAMES);

export const OrderChangeSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal(ChangeKindSchema.enum.resolution), action: ResolutionActionSchema }),
  z.object({
    kind: z.literal(ChangeKindSchema.enum.address_change),
    action: z.literal("change_shipping_address"),
    address: AddressSchema,
  }),
]);
export type OrderChange = z.infer<typeof OrderChangeSchema>;

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
      `payment declined ${declines.length} time(s): ${declines.map((d) => d.decline_code ?? "unknown").join(", ")}`,
    );
  for (const allocation of evidence.inventory.allocations) {
    if (allocation.state !== "allocated" && allocation.state !== "shipped") {
      facts.push(`${allocation.sku} x${allocation.quantity} is ${allocation.state} in ${allocation.warehouse}`);
    }
  }
  if (evidence.duplicate)
    facts.push(`duplicate of ${evidence.duplicate.of_order_id}: ${evidence.duplicate.signals.join("; ")}`);
  facts.push(`fulfillment ${evidence.fulfillment.state}: ${evidence.fulfillment.last_event}`);
  return facts;
}

/** The playbook's choice for an order with an active exception; the caller cannot pick another. */
export function planResolution(order: OrderRecord): ResolutionPlan | undefined {
  if (order.exception?.state !== "active") return undefined;
  const entry = PLAYBOOK[order.exception.type] ?? ESCALATION;
  return { ...entry, evidence: describeEvidence(order) };
}

function withTimeline(evidence: Evidence, at: string, event: string, detail: string): Evidence {
  return { ...evidence, timeline: [...evidence.timeline, { at, event, detail }] };
}

function releaseHeld(evidence: Evidence): Evidence["inventory"] {
  return {
    allocations: evidence.inventory.allocations.map((a) =>
      a.state === "held" || a.state === "allocated" || a.state === "missing" ? { ...a, state: "released" as const } : a,
    ),
  };
}

function resolved(
  order: OrderRecord,
  state: Exclude<ExceptionState, "active">,
  team?: string,
): OrderRecord["exception"] {
  return order.exception ? { ...order.exception, state, team: team ?? order.exception.team } : null;
}

/**
 * The order after a change. Pure: the proposal shows this result before
 * approval, and the apply writes the same result if the order's version has
 * not moved in between. The version bump itself happens in SQL.
 */
export function applyChange(order: OrderRecord, change: OrderChange, at: string): OrderRecord {
  const evidence = order.evidence;
  switch (change.action) {
    case "change_shipping_address":
      return {
        ...order,
        shipping_address: change.address,
        evidence: evidence
          ? withTimeline(
              evidence,
              at,
              "address_changed",
              `shipping address changed to ${formatAddress(change.address)}`,
            )
          : evidence,
      };
    case "cancel_duplicate_order": {
      if (!evidence) return { ...order, status: "cancelled", exception: resolved(order, "resolved") };
      const captured = evidence.payment.state === "captured";
      const payment: Evidence["payment"] = captured
        ? {
            state: "refunded",
            attempts: [
              ...evidence.payment.attempts,
              {
                attempt_id: `${order.order_id}-refund`,
                at,
                amount_cents: order.total_cents,
                method: evidence.payment.attempts.at(-1)?.method ?? "original method",
                outcome: "refunded",
                decline_code: null,
              },
            ],
          }
        : { ...evidence.payment, state: evidence.payment.state === "authorized" ? "voided" : evidence.payment.state };
      const next: Evidence = {
        ...evidence,
        payment,
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
    case "release_inventory_hold_and_cancel_order": {
      if (!evidence) return { ...order, status: "cancelled", exception: resolved(order, "resolved") };
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
    case "notify_customer_backorder": {
      if (!evidence) return { ...order, status: "backordered", exception: resolved(order, "resolved") };
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
    case "retry_fulfillment": {
      if (!evidence) return { ...order, status: "processing", exception: resolved(order, "resolved") };
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
    case "escalate_to_human":
      return {
        ...order,
        evidence: evidence
          ? withTimeline(evidence, at, "escalated_to_human", `handed to ${HUMAN_ESCALATION_TEAM}`)
          : evidence,
        exception: resolved(order, "escalated", HUMAN_ESCALATION_TEAM),
      };
  }
}
