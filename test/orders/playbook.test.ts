import { describe, expect, it } from "vitest";
import { applyChange, type OrderChange } from "../../src/orders/change-kinds";
import type { Evidence } from "../../src/orders/evidence";
import { HUMAN_ESCALATION_TEAM } from "../../src/orders/playbook";
import { AT, EARLIER, evidence, exception, NEW_ADDRESS, order, resolution } from "../helpers/order-records";

// The allowlisted playbook as pure functions: what each action does to an
// order. Which action an exception gets is in plan-resolution.test.ts.

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object") {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

describe("applyChange", () => {
  it("cancel_duplicate_order on a captured payment: cancelled, refunded with a refund attempt, stock released, exception resolved", () => {
    const before = order({
      exception: exception("duplicate_order"),
      evidence: evidence({ duplicate: { of_order_id: "ORD-1016", signals: ["same card"] } }),
    });
    const after = applyChange(before, resolution("cancel_duplicate_order"), AT);
    expect(after.status).toBe("cancelled");
    expect(after.version).toBe(3);
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
    expect(after.evidence?.fulfillment).toEqual({
      state: "cancelled",
      carrier: null,
      tracking: null,
      last_event: "cancelled as a duplicate of ORD-1016",
    });
    expect(after.evidence?.timeline.at(-1)).toEqual({
      at: AT,
      event: "duplicate_cancelled",
      detail: "cancelled the duplicate and returned the customer's money",
    });
    expect(after.evidence?.timeline).toHaveLength(2);
    expect(after.exception).toEqual({ ...before.exception, state: "resolved" });
  });

  it("cancel_duplicate_order on an authorized payment voids it without a refund attempt", () => {
    const before = order({
      exception: exception("duplicate_order"),
      evidence: evidence({
        payment: {
          state: "authorized",
          attempts: [
            {
              attempt_id: "P",
              at: EARLIER,
              amount_cents: 6600,
              method: "amex",
              outcome: "authorized",
              decline_code: null,
            },
          ],
        },
      }),
    });
    const after = applyChange(before, resolution("cancel_duplicate_order"), AT);
    expect(after.evidence?.payment.state).toBe("voided");
    expect(after.evidence?.payment.attempts).toEqual(before.evidence?.payment.attempts);
  });

  it("release_inventory_hold_and_cancel_order: cancelled, held stock released, shipped stock untouched, payment unchanged", () => {
    const declined: Evidence["payment"] = {
      state: "declined",
      attempts: [
        {
          attempt_id: "P",
          at: EARLIER,
          amount_cents: 8000,
          method: "visa",
          outcome: "declined",
          decline_code: "insufficient_funds",
        },
      ],
    };
    const before = order({
      status: "payment_failed",
      exception: exception("payment_declined_inventory_held"),
      evidence: evidence({
        payment: declined,
        inventory: {
          allocations: [
            { sku: "SKU-4415", quantity: 2, warehouse: "ATL-2", state: "held" },
            { sku: "SKU-1180", quantity: 1, warehouse: "ATL-2", state: "shipped" },
          ],
        },
      }),
    });
    const after = applyChange(before, resolution("release_inventory_hold_and_cancel_order"), AT);
    expect(after.status).toBe("cancelled");
    expect(after.evidence?.payment).toEqual(declined);
    expect(after.evidence?.inventory.allocations.map((a) => a.state)).toEqual(["released", "shipped"]);
    expect(after.evidence?.fulfillment.state).toBe("cancelled");
    expect(after.evidence?.timeline.at(-1)).toEqual({
      at: AT,
      event: "inventory_released",
      detail: "released held stock and cancelled the unpaid order",
    });
    expect(after.exception?.state).toBe("resolved");
    expect(after.exception?.team).toBe("Customer Care");
  });

  it("notify_customer_backorder: missing lines become backordered, the rest stay allocated", () => {
    const before = order({
      status: "on_hold",
      exception: exception("fulfillment_hold_missing_sku"),
      evidence: evidence({
        inventory: {
          allocations: [
            { sku: "SKU-7720", quantity: 1, warehouse: "RNO-1", state: "missing" },
            { sku: "SKU-1180", quantity: 2, warehouse: "RNO-1", state: "allocated" },
          ],
        },
      }),
    });
    const after = applyChange(before, resolution("notify_customer_backorder"), AT);
    expect(after.status).toBe("backordered");
    expect(after.evidence?.inventory.allocations.map((a) => a.state)).toEqual(["backordered", "allocated"]);
    expect(after.evidence?.fulfillment.state).toBe("backordered");
    expect(after.evidence?.fulfillment.last_event).toBe("customer notified that SKU-7720 is backordered");
    expect(after.evidence?.timeline.at(-1)).toEqual({
      at: AT,
      event: "customer_notified",
      detail: "backorder notice sent to the customer for SKU-7720",
    });
    expect(after.evidence?.payment).toEqual(before.evidence?.payment);
    expect(after.exception?.state).toBe("resolved");
  });

  it("retry_fulfillment: processing, fulfillment resubmitted, stock and payment untouched", () => {
    const before = order({
      status: "partially_shipped",
      exception: exception("fulfillment_incomplete_carrier_timeout"),
    });
    const after = applyChange(before, resolution("retry_fulfillment"), AT);
    expect(after.status).toBe("processing");
    expect(after.evidence?.fulfillment).toEqual({
      state: "retry_submitted",
      carrier: null,
      tracking: null,
      last_event: "label request for the remaining shipment resubmitted to the carrier",
    });
    expect(after.evidence?.inventory).toEqual(before.evidence?.inventory);
    expect(after.evidence?.payment).toEqual(before.evidence?.payment);
    expect(after.evidence?.timeline.at(-1)).toEqual({
      at: AT,
      event: "fulfillment_retried",
      detail: "resubmitted the remaining shipment",
    });
    expect(after.exception?.state).toBe("resolved");
  });

  it("escalate_to_human: status unchanged, exception escalated to the human team", () => {
    const before = order({ status: "on_hold", exception: exception("fraud_review") });
    const after = applyChange(before, resolution("escalate_to_human"), AT);
    expect(after.status).toBe("on_hold");
    expect(after.exception).toEqual({ ...before.exception, state: "escalated", team: HUMAN_ESCALATION_TEAM });
    expect(HUMAN_ESCALATION_TEAM).toBe("Escalations (human review)");
    expect(after.evidence?.timeline.at(-1)).toEqual({
      at: AT,
      event: "escalated_to_human",
      detail: `handed to ${HUMAN_ESCALATION_TEAM}`,
    });
    expect(after.evidence?.inventory).toEqual(before.evidence?.inventory);
  });

  it("change_shipping_address: only the address and the timeline change", () => {
    const before = order();
    const after = applyChange(
      before,
      { kind: "address_change", action: "change_shipping_address", address: NEW_ADDRESS },
      AT,
    );
    expect(after.shipping_address).toEqual(NEW_ADDRESS);
    expect(after.status).toBe(before.status);
    expect(after.exception).toEqual(before.exception);
    expect(after.evidence?.timeline.at(-1)).toEqual({
      at: AT,
      event: "address_changed",
      detail: "shipping address changed to Jonas Becker, 9 Harbor Road, Unit 2, Evanston, IL 60201-1234, US",
    });
  });

  it("an order without evidence is still cancelled and resolved", () => {
    const after = applyChange(
      order({ evidence: null, exception: exception("duplicate_order") }),
      resolution("cancel_duplicate_order"),
      AT,
    );
    expect(after.status).toBe("cancelled");
    expect(after.evidence).toBeNull();
    expect(after.exception?.state).toBe("resolved");
  });

  it.each([
    resolution("cancel_duplicate_order"),
    resolution("release_inventory_hold_and_cancel_order"),
    resolution("notify_customer_backorder"),
    resolution("retry_fulfillment"),
    resolution("escalate_to_human"),
    { kind: "address_change", action: "change_shipping_address", address: NEW_ADDRESS } satisfies OrderChange,
  ])("$action does not mutate its input order", (change) => {
    const before = order({
      exception: exception("duplicate_order"),
      evidence: evidence({
        inventory: {
          allocations: [
            { sku: "SKU-7720", quantity: 1, warehouse: "RNO-1", state: "missing" },
            { sku: "SKU-1", quantity: 1, warehouse: "RNO-1", state: "held" },
          ],
        },
        duplicate: { of_order_id: "ORD-1016", signals: ["x"] },
      }),
    });
    const snapshot = structuredClone(before);
    const after = applyChange(deepFreeze(before), change, AT);
    expect(before).toEqual(snapshot);
    expect(after).not.toBe(before);
    expect(after.evidence?.timeline).toHaveLength((snapshot.evidence?.timeline.length ?? 0) + 1);
  });
});
