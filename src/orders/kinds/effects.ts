/**
 * The pieces of an apply step that several kinds share, each a pure function
 * on the order record: a timeline entry, stock released, the customer's money
 * returned, an exception closed. A kind composes them in its `apply`.
 */
import type { Evidence, ExceptionState } from "../evidence";
import type { OrderRecord } from "../order-record";
import type { MoneyRule } from "./kind";

export function withTimeline(evidence: Evidence, at: string, event: string, detail: string): Evidence {
  return { ...evidence, timeline: [...evidence.timeline, { at, event, detail }] };
}

/**
 * Every unit still reserved for the order (allocated, held, or waited for) goes back to sale; shipped units stay
 * shipped.
 */
export function releaseHeld(evidence: Evidence): Evidence["inventory"] {
  return {
    allocations: evidence.inventory.allocations.map((a) =>
      a.state === "held" || a.state === "allocated" || a.state === "missing" ? { ...a, state: "released" as const } : a,
    ),
  };
}

/** The order's exception closed in this state (and handed to `team`, if given); no exception stays none. */
export function resolved(
  order: OrderRecord,
  state: Exclude<ExceptionState, "active">,
  team?: string,
): OrderRecord["exception"] {
  return order.exception ? { ...order.exception, state, team: team ?? order.exception.team } : null;
}

/**
 * The customer's money given back: a captured payment is refunded in full,
 * with the refund as a new attempt on the original method; an authorization
 * is voided; any other state (nothing was taken) stays as it is.
 */
export function returnPayment(order: OrderRecord, evidence: Evidence, at: string): Evidence["payment"] {
  if (evidence.payment.state === "captured") {
    return {
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
    };
  }
  return { ...evidence.payment, state: evidence.payment.state === "authorized" ? "voided" : evidence.payment.state };
}

/**
 * The money rule of returnPayment: a refund of what was captured (`because` says why), a voided authorization, or
 * nothing.
 */
export function refundOrVoid(because: string): MoneyRule {
  return (payment) => {
    if (payment === "captured") return { move: "refund", because };
    if (payment === "authorized") return { move: "void" };
    return { move: "nothing_to_refund" };
  };
}
