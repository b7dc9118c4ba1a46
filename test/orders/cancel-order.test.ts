import { describe, expect, it } from "vitest";
import { applyChange, CHANGE_KINDS } from "../../src/orders/change-kinds";
import type { Evidence } from "../../src/orders/evidence";
import type { OrderRecord } from "../../src/orders/order-record";
import { AT, EARLIER, evidence, exception, order } from "../helpers/order-records";

// cancel_order as pure functions: which orders its rule refuses and why, and
// what the apply step does to an order that has not shipped.

const kind = CHANGE_KINDS.cancel_order;
const REASON = "customer asked to cancel by email";
const CANCEL = { kind: "cancel_order", action: "cancel_order" } as const;
const SHIPPED_ONE: Evidence["inventory"] = {
  allocations: [
    { sku: "SKU-3390", quantity: 1, warehouse: "ATL-2", state: "shipped" },
    { sku: "SKU-5510", quantity: 2, warehouse: "ATL-2", state: "allocated" },
  ],
};

function refusal(record: OrderRecord): string {
  const proposed = kind.propose(record, { reason: REASON });
  if (proposed.ok) throw new Error(`${record.order_id} was not refused`);
  expect(proposed.error.code).toBe("conflict");
  return proposed.error.message;
}

describe("the cancel_order rule", () => {
  it.each(["shipped", "partially_shipped", "delivered"])("refuses an order that is %s, saying why", (status) => {
    expect(refusal(order({ status }))).toBe(
      `order ORD-5000 is ${status}, so it can no longer be cancelled: what has left the warehouse comes back as a return`,
    );
  });

  it("refuses an order part of which has shipped, whatever its status says", () => {
    expect(refusal(order({ status: "processing", evidence: evidence({ inventory: SHIPPED_ONE }) }))).toBe(
      "part of order ORD-5000 has already shipped, so it can no longer be cancelled: what has left the warehouse comes back as a return",
    );
  });

  it("refuses an order that is already cancelled", () => {
    expect(refusal(order({ status: "cancelled" }))).toBe(
      "order ORD-5000 is already cancelled; there is nothing to cancel",
    );
  });

  it("proposes cancelling an order that has not shipped, high risk, with the reason and what it releases", () => {
    const proposed = kind.propose(order(), { reason: REASON });
    expect(proposed).toEqual({
      ok: true,
      value: {
        change: CANCEL,
        plan: {
          risk: "high",
          rationale: `Cancel order ORD-5000 before it ships (${REASON}): its reserved stock goes back to sale and the captured payment is refunded in full.`,
          evidence: [
            "order ORD-5000 is pending at version 3, and nothing of it has shipped",
            "payment captured",
            "SKU-3390 x1 is allocated in ATL-2; it goes back to stock",
            "SKU-5510 x2 is allocated in ATL-2; it goes back to stock",
            "fulfillment awaiting_pick: queued for warehouse",
            `reason given: ${REASON}`,
          ],
        },
      },
    });
  });
});

describe("applying cancel_order", () => {
  it("a captured payment: cancelled, refunded in full on the original method, stock released, the open exception resolved", () => {
    const before = order({ exception: exception("fraud_review") });
    const after = applyChange(before, CANCEL, AT);
    expect(after.status).toBe("cancelled");
    expect(after.evidence?.payment).toEqual({
      state: "refunded",
      attempts: [
        ...(before.evidence?.payment.attempts ?? []),
        {
          attempt_id: "ORD-5000-refund",
          at: AT,
          amount_cents: 6600,
          method: "visa ending 9011",
          outcome: "refunded",
          decline_code: null,
        },
      ],
    });
    expect(after.evidence?.inventory.allocations.map((a) => a.state)).toEqual(["released", "released"]);
    expect(after.evidence?.fulfillment).toMatchObject({ state: "cancelled", last_event: "cancelled before shipping" });
    expect(after.evidence?.timeline.at(-1)).toEqual({
      at: AT,
      event: "order_cancelled",
      detail: "cancelled before shipping: stock released and the captured payment is refunded in full",
    });
    expect(after.exception).toEqual({ ...before.exception, state: "resolved" });
    expect(after.total_cents).toBe(before.total_cents);
  });

  it("an authorization is voided; a declined payment stays as it was", () => {
    const authorized = evidence({ payment: { state: "authorized", attempts: [] } });
    expect(applyChange(order({ evidence: authorized }), CANCEL, AT).evidence?.payment).toEqual({
      state: "voided",
      attempts: [],
    });
    const declined = evidence({ payment: { state: "declined", attempts: [] } });
    expect(applyChange(order({ evidence: declined }), CANCEL, AT).evidence?.payment).toEqual(declined.payment);
  });

  it("an exception already closed stays as it is; an order without evidence is still cancelled", () => {
    const escalated = exception("fraud_review", "escalated");
    expect(applyChange(order({ exception: escalated }), CANCEL, AT).exception).toEqual(escalated);
    const bare = applyChange(order({ evidence: null, exception: null }), CANCEL, AT);
    expect(bare).toEqual({ ...order({ evidence: null, exception: null }), status: "cancelled" });
  });

  it("does not touch its input", () => {
    const before = order();
    const snapshot = structuredClone(before);
    applyChange(before, CANCEL, AT);
    expect(before).toEqual(snapshot);
    expect(EARLIER < AT).toBe(true);
  });
});
