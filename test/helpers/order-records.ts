/** Order records built in memory, for the pure domain tests: no D1, no HTTP. */

import type { KindChange, OrderChange } from "../../src/orders/change-kinds";
import type { Address, Evidence, ExceptionType } from "../../src/orders/evidence";
import type { OrderException, OrderRecord } from "../../src/orders/order-record";

export const AT = "2030-01-02T03:04:05.000Z";
export const EARLIER = "2030-01-01T00:00:00.000Z";

export const ADDRESS: Address = {
  recipient: "Jonas Becker",
  line1: "301 Lakeshore Drive",
  line2: null,
  city: "Chicago",
  region: "IL",
  postal_code: "60611",
  country: "US",
};
export const NEW_ADDRESS: Address = {
  recipient: "Jonas Becker",
  line1: "9 Harbor Road",
  line2: "Unit 2",
  city: "Evanston",
  region: "IL",
  postal_code: "60201-1234",
  country: "US",
};

export function evidence(overrides: Partial<Evidence> = {}): Evidence {
  return {
    payment: {
      state: "captured",
      attempts: [
        {
          attempt_id: "PAY-1-1",
          at: EARLIER,
          amount_cents: 6600,
          method: "visa ending 9011",
          outcome: "captured",
          decline_code: null,
        },
      ],
    },
    inventory: {
      allocations: [
        { sku: "SKU-3390", quantity: 1, warehouse: "ATL-2", state: "allocated" },
        { sku: "SKU-5510", quantity: 2, warehouse: "ATL-2", state: "allocated" },
      ],
    },
    fulfillment: { state: "awaiting_pick", carrier: null, tracking: null, last_event: "queued for warehouse" },
    duplicate: null,
    timeline: [{ at: EARLIER, event: "order_placed", detail: "placed via store" }],
    ...overrides,
  };
}

export function exception(type: ExceptionType, state: OrderException["state"] = "active"): OrderException {
  return {
    type,
    state,
    priority: "P2",
    team: "Customer Care",
    opened_at: EARLIER,
    sla_minutes: 120,
    summary: `summary of ${type}`,
  };
}

export function order(overrides: Partial<OrderRecord> = {}): OrderRecord {
  return {
    order_id: "ORD-5000",
    account: "acme",
    source: "operations",
    customer_id: "CUST-0004",
    channel: "store",
    currency: "USD",
    total_cents: 6600,
    status: "pending",
    version: 3,
    lines: [
      { sku: "SKU-3390", quantity: 1, unit_price_cents: 2900 },
      { sku: "SKU-5510", quantity: 2, unit_price_cents: 1850 },
    ],
    shipping_address: ADDRESS,
    evidence: evidence(),
    exception: exception("fraud_review"),
    created_at: EARLIER,
    updated_at: EARLIER,
    ...overrides,
  };
}

export const resolution = (action: KindChange<"resolution">["action"]): OrderChange => ({
  kind: "resolution",
  action,
});
