/**
 * The words a person reads instead of the internal names, wherever they read
 * them: the approval app's pages and the MCP Apps cards use this one
 * vocabulary, so an approver and an operator call a thing by the same name.
 * Enums are keyed by their schema types, so a new action or exception does
 * not compile until it has a label; free-form values (order and fulfillment
 * states) fall back to the name with its underscores turned into spaces.
 * Proposal statuses are in proposals/status-labels.ts, one layer up; the
 * actions' words are their change kinds' (orders/change-kinds.ts), which the
 * cards receive in their documents (mcp/cards/card-page.ts), so this file
 * stays free of imports: the cards bundle it, and the browser tests load it in Node.
 */

import type { Risk } from "../core/risk";
import type { AllocationState, ExceptionState, ExceptionType, Payment } from "./evidence";

const RISK_LABELS: Readonly<Record<Risk, string>> = { low: "Low risk", medium: "Medium risk", high: "High risk" };

const EXCEPTION_LABELS: Readonly<Record<ExceptionType, string>> = {
  duplicate_order: "Duplicate order",
  payment_declined_inventory_held: "Payment declined, stock held",
  fulfillment_hold_missing_sku: "On hold: an item is out of stock",
  fulfillment_incomplete_carrier_timeout: "Shipment incomplete: carrier timed out",
  fraud_review: "Fraud review",
};

const EXCEPTION_STATE_LABELS: Readonly<Record<ExceptionState, string>> = {
  active: "open",
  resolved: "resolved",
  escalated: "escalated",
};

const PAYMENT_LABELS: Readonly<Record<Payment["state"], string>> = {
  captured: "Charged",
  authorized: "Authorized, not charged yet",
  declined: "Declined",
  refunded: "Refunded",
  voided: "Authorization voided",
};

/** The card networks' decline codes, as they appear in payment evidence and exception summaries. */
const DECLINE_LABELS: Readonly<Record<string, string>> = {
  insufficient_funds: "insufficient funds",
  card_expired: "card expired",
  do_not_honor: "declined by the bank",
};

const ALLOCATION_LABELS: Readonly<Record<AllocationState, string>> = {
  allocated: "reserved",
  held: "held",
  missing: "missing (no stock)",
  shipped: "shipped",
  released: "released back to stock",
  backordered: "backordered",
};

/** Order statuses and fulfillment states share one vocabulary. */
const STATE_LABELS: Readonly<Record<string, string>> = {
  awaiting_pick: "Waiting to be picked",
  label_timeout: "Carrier label timed out",
  retry_submitted: "Resubmitted to carrier",
  payment_failed: "Payment failed",
  on_hold: "On hold",
  partially_shipped: "Partially shipped",
  picking: "Being picked",
};

const FIELD_LABELS: Readonly<Record<string, string>> = {
  status: "Order status",
  exception: "Exception",
  payment: "Payment",
  inventory: "Stock",
  fulfillment: "Fulfillment",
  shipping_address: "Shipping address",
};

/** `some_internal_name` → "Some internal name": the fallback for names without a label. */
export function humanize(name: string): string {
  const words = name.replace(/_+/g, " ").trim();
  return words === "" ? name : words.charAt(0).toUpperCase() + words.slice(1);
}

function lookup(table: Readonly<Record<string, string>>, name: string): string {
  return Object.hasOwn(table, name) ? (table[name] ?? humanize(name)) : humanize(name);
}

export function riskLabel(risk: Risk): string {
  return RISK_LABELS[risk];
}

export function orderStatusLabel(status: string): string {
  return lookup(STATE_LABELS, status);
}

export function fulfillmentLabel(state: string): string {
  return lookup(STATE_LABELS, state);
}

export function exceptionLabel(type: string): string {
  return lookup(EXCEPTION_LABELS, type);
}

export function exceptionStateLabel(state: string): string {
  return lookup(EXCEPTION_STATE_LABELS, state).toLowerCase();
}

export function paymentLabel(state: string): string {
  return lookup(PAYMENT_LABELS, state);
}

export function allocationLabel(state: string): string {
  return lookup(ALLOCATION_LABELS, state).toLowerCase();
}

export function fieldLabel(field: string): string {
  return lookup(FIELD_LABELS, field);
}

/** Every labelled internal name, for words found inside free text. */
const ANY_NAME: Readonly<Record<string, string>> = {
  ...STATE_LABELS,
  ...EXCEPTION_LABELS,
  ...DECLINE_LABELS,
};

/** A snake_case name inside free text. */
const NAME_IN_TEXT = /\b[a-z0-9]+(?:_[a-z0-9]+)+\b/g;

/**
 * Free text (evidence, timeline entries, exception summaries) with each known
 * snake_case name replaced by its words: "duplicate_order (P2, …)" reads
 * "Duplicate order (P2, …)"; inside a sentence the label starts lower case.
 * Unknown names stay as they are: they may be ids, which must survive being copied.
 */
export function humanizeText(text: string): string {
  return text.replace(NAME_IN_TEXT, (name, offset: number) => {
    if (!Object.hasOwn(ANY_NAME, name)) return name;
    const label = lookup(ANY_NAME, name);
    return offset === 0 ? label : label.charAt(0).toLowerCase() + label.slice(1);
  });
}

/**
 * The shapes orders/order-state.ts gives an exception ("type state (team)") and an allocation ("SKU xN state
 * (warehouse)").
 */
const EXCEPTION_VALUE = /^(\S+) (\S+) \((.*)\)$/;
const ALLOCATION_VALUE = /^(\S+) x(\d+) (\S+) \((.*)\)$/;

/**
 * One before/after value of a proposal's expected changes, in words, one
 * line per entry. The values are the strings orders/order-state.ts builds;
 * anything that does not parse is shown with its names humanized.
 */
export function changeValueLines(field: string, value: string): string[] {
  if (value === "none") return ["None"];
  switch (field) {
    case "status":
      return [orderStatusLabel(value)];
    case "payment":
      return [paymentLabel(value)];
    case "exception": {
      const [, type, state, team] = EXCEPTION_VALUE.exec(value) ?? [];
      return type && state && team !== undefined
        ? [`${exceptionLabel(type)} (${exceptionStateLabel(state)}, ${team})`]
        : [humanizeText(value)];
    }
    case "inventory":
      return value.split("; ").map((entry) => {
        const [, sku, quantity, state, warehouse] = ALLOCATION_VALUE.exec(entry) ?? [];
        return sku && quantity && state && warehouse !== undefined
          ? `${sku} × ${quantity} ${allocationLabel(state)} at ${warehouse}`
          : humanizeText(entry);
      });
    case "fulfillment": {
      const colon = value.indexOf(": ");
      return colon > 0
        ? [
            `${fulfillmentLabel(value.slice(0, colon))}: ${fulfillmentEvent(value.slice(0, colon), value.slice(colon + 2))}`,
          ]
        : [fulfillmentLabel(value)];
    }
    default:
      return [humanizeText(value)];
  }
}

/**
 * A fulfillment event without the state it repeats: under on_hold, "hold:
 * SKU-7720 has no stock" reads "SKU-7720 has no stock", so "On hold: hold: …"
 * is never shown.
 */
export function fulfillmentEvent(state: string, lastEvent: string): string {
  const prefix = /^(\w+):\s*/.exec(lastEvent);
  return prefix?.[1] && state.split("_").includes(prefix[1]) ? lastEvent.slice(prefix[0].length) : lastEvent;
}
