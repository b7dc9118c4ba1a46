import { describe, expect, it } from "vitest";
import { applyChange } from "../../src/orders/change-kinds";
import { diffStates, formatAddress, type OrderState, orderState } from "../../src/orders/order-state";
import { ADDRESS, AT, exception, NEW_ADDRESS, order, resolution } from "../helpers/order-records";

// How a change is shown to a human: the fields of an order a change can touch,
// and the before/after rows between two of them.

describe("orderState and diffStates", () => {
  const state = (overrides: Partial<OrderState> = {}): OrderState => ({ ...orderState(order()), ...overrides });

  it("orderState keeps the fields a change can touch", () => {
    expect(orderState(order())).toEqual({
      status: "pending",
      version: 3,
      exception: { type: "fraud_review", state: "active", team: "Customer Care" },
      payment: "captured",
      inventory: ["SKU-3390 x1 allocated (ATL-2)", "SKU-5510 x2 allocated (ATL-2)"],
      fulfillment: "awaiting_pick: queued for warehouse",
      shipping_address: ADDRESS,
    });
  });

  it("identical states (even at different versions) differ in nothing", () => {
    expect(diffStates(state(), state({ version: 4 }))).toEqual([]);
  });

  it("one row per changed field, in a fixed order, with readable before/after values", () => {
    const before = state();
    const after = state({
      status: "cancelled",
      exception: null,
      payment: null,
      inventory: [],
      fulfillment: null,
      shipping_address: NEW_ADDRESS,
    });
    expect(diffStates(before, after)).toEqual([
      { field: "status", before: "pending", after: "cancelled" },
      { field: "exception", before: "fraud_review active (Customer Care)", after: "none" },
      { field: "payment", before: "captured", after: "none" },
      { field: "inventory", before: "SKU-3390 x1 allocated (ATL-2); SKU-5510 x2 allocated (ATL-2)", after: "none" },
      { field: "fulfillment", before: "awaiting_pick: queued for warehouse", after: "none" },
      { field: "shipping_address", before: formatAddress(ADDRESS), after: formatAddress(NEW_ADDRESS) },
    ]);
    expect(formatAddress(ADDRESS)).toBe("Jonas Becker, 301 Lakeshore Drive, Chicago, IL 60611, US");
    expect(formatAddress(null)).toBe("(none)");
  });

  it("the diff of a real change: escalation shows the exception row only", () => {
    const before = order({ exception: exception("fraud_review") });
    const after = applyChange(before, resolution("escalate_to_human"), AT);
    expect(diffStates(orderState(before), orderState(after))).toEqual([
      {
        field: "exception",
        before: "fraud_review active (Customer Care)",
        after: "fraud_review escalated (Escalations (human review))",
      },
    ]);
  });
});
