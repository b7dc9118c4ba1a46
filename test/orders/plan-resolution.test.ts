import { describe, expect, it } from "vitest";
import { planResolution } from "../../src/orders/playbook";
import { EARLIER, evidence, exception, order } from "../helpers/order-records";

// The allowlisted playbook as pure functions: which action an exception gets,
// at what risk, and the evidence it cites. What each action does to an order
// is in playbook.test.ts.

describe("planResolution", () => {
  it.each([
    ["duplicate_order", "cancel_duplicate_order", "high"],
    ["payment_declined_inventory_held", "release_inventory_hold_and_cancel_order", "high"],
    ["fulfillment_hold_missing_sku", "notify_customer_backorder", "medium"],
    ["fulfillment_incomplete_carrier_timeout", "retry_fulfillment", "medium"],
    ["fraud_review", "escalate_to_human", "low"],
  ] as const)("%s -> %s (%s risk)", (type, action, risk) => {
    const plan = planResolution(order({ exception: exception(type) }));
    expect(plan?.action).toBe(action);
    expect(plan?.risk).toBe(risk);
    expect(plan?.rationale.length).toBeGreaterThan(20);
    expect(plan?.evidence[0]).toBe(`${type} (P2, Customer Care): summary of ${type}`);
  });

  it("no exception at all -> undefined", () => {
    expect(planResolution(order({ exception: null }))).toBeUndefined();
  });

  it.each(["resolved", "escalated"] as const)("an exception that is already %s -> undefined", (state) => {
    expect(planResolution(order({ exception: exception("duplicate_order", state) }))).toBeUndefined();
  });

  it("cites declines, unallocated stock, the duplicate and fulfillment as evidence", () => {
    const plan = planResolution(
      order({
        exception: exception("payment_declined_inventory_held"),
        evidence: evidence({
          payment: {
            state: "declined",
            attempts: [
              {
                attempt_id: "A",
                at: EARLIER,
                amount_cents: 1,
                method: "visa",
                outcome: "declined",
                decline_code: "insufficient_funds",
              },
              {
                attempt_id: "B",
                at: EARLIER,
                amount_cents: 1,
                method: "visa",
                outcome: "declined",
                decline_code: null,
              },
            ],
          },
          inventory: {
            allocations: [
              { sku: "SKU-4415", quantity: 2, warehouse: "ATL-2", state: "held" },
              { sku: "SKU-1180", quantity: 1, warehouse: "ATL-2", state: "allocated" },
            ],
          },
          duplicate: { of_order_id: "ORD-1016", signals: ["same card", "same lines"] },
        }),
      }),
    );
    expect(plan?.evidence).toEqual([
      "payment_declined_inventory_held (P2, Customer Care): summary of payment_declined_inventory_held",
      "payment declined twice: insufficient_funds, unknown",
      "SKU-4415 x2 is held in ATL-2",
      "duplicate of ORD-1016: same card; same lines",
      "fulfillment awaiting_pick: queued for warehouse",
    ]);
  });
});
