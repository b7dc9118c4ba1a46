/**
 * simulate_new_failure: one new order with an active exception, for demos.
 * Each account numbers its own orders (ORD-<n>), so one account's demo
 * activity says nothing about another's.
 */
import type { Evidence, ExceptionType, Priority } from "./evidence";
import type { OrderRecord } from "./order-record";
import { referenceData } from "./reference-data";

type SimulatedKind = Exclude<ExceptionType, "duplicate_order">;
const SIMULATED_KINDS: readonly SimulatedKind[] = [
  "payment_declined_inventory_held",
  "fulfillment_hold_missing_sku",
  "fulfillment_incomplete_carrier_timeout",
  "fraud_review",
];

export function simulatedOrder(account: string, number: number, now: Date): OrderRecord {
  const orderId = `ORD-${number}`;
  const kind = SIMULATED_KINDS[number % SIMULATED_KINDS.length] ?? "fraud_review";
  const customer =
    referenceData.customerList[number % referenceData.customerList.length] ?? referenceData.customerList[0];
  if (!customer) throw new Error("seed/customers.json is empty");
  const at = now.toISOString();
  const sku =
    kind === "fulfillment_hold_missing_sku"
      ? [...referenceData.skus.values()].find((s) => !s.in_stock)
      : referenceData.sellable[number % referenceData.sellable.length];
  if (!sku) throw new Error("seed/catalog.json has no usable sku");
  const quantity = 1 + (number % 3);
  const total = sku.unit_price_cents * quantity;
  const allocationState =
    kind === "payment_declined_inventory_held"
      ? "held"
      : kind === "fulfillment_hold_missing_sku"
        ? "missing"
        : "allocated";
  const details: Record<
    SimulatedKind,
    {
      status: string;
      priority: Priority;
      team: string;
      sla: number;
      summary: string;
      payment: Evidence["payment"];
      fulfillment: Evidence["fulfillment"];
    }
  > = {
    payment_declined_inventory_held: {
      status: "payment_failed",
      priority: "P2",
      team: "Payments Ops",
      sla: 60,
      summary: `Simulated: card declined (do_not_honor); ${quantity} unit(s) of ${sku.sku} held.`,
      payment: {
        state: "declined",
        attempts: [
          {
            attempt_id: `PAY-${number}-1`,
            at,
            amount_cents: total,
            method: "visa ending 0002",
            outcome: "declined",
            decline_code: "do_not_honor",
          },
        ],
      },
      fulfillment: { state: "blocked", carrier: null, tracking: null, last_event: "waiting for payment" },
    },
    fulfillment_hold_missing_sku: {
      status: "on_hold",
      priority: "P2",
      team: "Fulfillment Ops",
      sla: 240,
      summary: `Simulated: ${sku.sku} (${sku.name}) has no stock; order held.`,
      payment: {
        state: "authorized",
        attempts: [
          {
            attempt_id: `PAY-${number}-1`,
            at,
            amount_cents: total,
            method: "visa ending 4242",
            outcome: "authorized",
            decline_code: null,
          },
        ],
      },
      fulfillment: {
        state: "on_hold",
        carrier: null,
        tracking: null,
        last_event: `hold: ${sku.sku} has no stock in any warehouse`,
      },
    },
    fulfillment_incomplete_carrier_timeout: {
      status: "processing",
      priority: "P2",
      team: "Logistics",
      sla: 240,
      summary: "Simulated: the carrier label request timed out; the parcel has not left.",
      payment: {
        state: "captured",
        attempts: [
          {
            attempt_id: `PAY-${number}-1`,
            at,
            amount_cents: total,
            method: "visa ending 4242",
            outcome: "captured",
            decline_code: null,
          },
        ],
      },
      fulfillment: {
        state: "label_failed",
        carrier: "UPS",
        tracking: null,
        last_event: "label request timed out at carrier API",
      },
    },
    fraud_review: {
      status: "on_hold",
      priority: "P1",
      team: "Risk & Trust",
      sla: 30,
      summary: "Simulated: risk score 91 on a new card shipping to a reshipper.",
      payment: {
        state: "authorized",
        attempts: [
          {
            attempt_id: `PAY-${number}-1`,
            at,
            amount_cents: total,
            method: "visa ending 7777 (new card)",
            outcome: "authorized",
            decline_code: null,
          },
        ],
      },
      fulfillment: { state: "on_hold", carrier: null, tracking: null, last_event: "hold: risk review" },
    },
  };
  const chosen = details[kind];
  return {
    order_id: orderId,
    account,
    source: "operations",
    customer_id: customer.customer_id,
    channel: customer.allowed_channels[0] ?? "web",
    currency: "USD",
    total_cents: total,
    status: chosen.status,
    version: 1,
    lines: [{ sku: sku.sku, quantity, unit_price_cents: sku.unit_price_cents }],
    shipping_address: {
      recipient: customer.name,
      line1: "1 Simulation Way",
      line2: null,
      city: "Springfield",
      region: "IL",
      postal_code: "62701",
      country: "US",
    },
    evidence: {
      payment: chosen.payment,
      inventory: { allocations: [{ sku: sku.sku, quantity, warehouse: "RNO-1", state: allocationState }] },
      fulfillment: chosen.fulfillment,
      duplicate: null,
      timeline: [
        { at, event: "order_placed", detail: `simulated order via ${customer.allowed_channels[0] ?? "web"}` },
        { at, event: "exception_opened", detail: kind },
      ],
    },
    exception: {
      type: kind,
      state: "active",
      priority: chosen.priority,
      team: chosen.team,
      opened_at: at,
      sla_minutes: chosen.sla,
      summary: chosen.summary,
    },
    created_at: at,
    updated_at: at,
  };
}
