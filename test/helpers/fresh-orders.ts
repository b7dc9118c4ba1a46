/**
 * Fresh orders written straight into D1 (so tests that apply never spend the
 * shared seed orders), and raw reads of their rows.
 */
import { env } from "cloudflare:workers";
import type { Address, Evidence, ExceptionType } from "../../src/orders/evidence";
import type { OrderException } from "../../src/orders/order-record";
import { insertAuditEvent } from "../../src/store/audit-events";
import { insertOrderRecord } from "../../src/store/order-rows";
import { order as orderRecord } from "./order-records";
import { warmUp } from "./orders";

export type ExceptionKind = ExceptionType;

export interface FreshOrderOptions {
  readonly account?: string;
  /** Defaults to a fresh TST-... id. */
  readonly orderId?: string;
  /** null: an order without any exception. */
  readonly exception?: ExceptionKind | null;
  readonly exceptionState?: "active" | "resolved" | "escalated";
  readonly status?: string;
  readonly paymentState?: Evidence["payment"]["state"];
  readonly priority?: OrderException["priority"];
  readonly openedMinutesAgo?: number;
  /** An exact opened_at (ISO); wins over openedMinutesAgo. */
  readonly openedAt?: string;
  readonly slaMinutes?: number;
  readonly address?: Address;
  readonly customerId?: string;
  /** false: write the order alone, without its origin event (tests of the invariant and of exact event lists). */
  readonly originEvent?: boolean;
  /** The order's value; above the test environment's FOUR_EYES_OVER_CENTS, a refund needs two approvers. */
  readonly totalCents?: number;
}

export const DEFAULT_ADDRESS: Address = {
  recipient: "Test Recipient",
  line1: "1 Test Street",
  line2: null,
  city: "Springfield",
  region: "IL",
  postal_code: "62701",
  country: "US",
};

interface Shape {
  status: string;
  payment: Evidence["payment"]["state"];
  allocations: Evidence["inventory"]["allocations"];
  fulfillment: Evidence["fulfillment"];
  duplicate: Evidence["duplicate"];
  team: string;
}

function shapeFor(kind: FreshOrderOptions["exception"]): Shape {
  const allocated = [
    { sku: "SKU-2240", quantity: 1, warehouse: "RNO-1", state: "allocated" as const },
    { sku: "SKU-1180", quantity: 2, warehouse: "RNO-1", state: "allocated" as const },
  ];
  switch (kind) {
    case "duplicate_order":
      return {
        status: "pending",
        payment: "captured",
        allocations: allocated,
        fulfillment: { state: "pending", carrier: null, tracking: null, last_event: "waiting to be picked" },
        duplicate: { of_order_id: "ORD-1016", signals: ["same customer", "same lines", "placed 2 minutes apart"] },
        team: "Order Integrity",
      };
    case "payment_declined_inventory_held":
      return {
        status: "payment_failed",
        payment: "declined",
        allocations: allocated.map((a) => ({ ...a, state: "held" as const })),
        fulfillment: { state: "blocked", carrier: null, tracking: null, last_event: "waiting for payment" },
        duplicate: null,
        team: "Payments Ops",
      };
    case "fulfillment_hold_missing_sku":
      return {
        status: "on_hold",
        payment: "authorized",
        allocations: [
          { sku: "SKU-7720", quantity: 1, warehouse: "RNO-1", state: "missing" },
          { sku: "SKU-1180", quantity: 2, warehouse: "RNO-1", state: "allocated" },
        ],
        fulfillment: { state: "on_hold", carrier: null, tracking: null, last_event: "hold: SKU-7720 has no stock" },
        duplicate: null,
        team: "Fulfillment Ops",
      };
    case "fulfillment_incomplete_carrier_timeout":
      return {
        status: "processing",
        payment: "captured",
        allocations: allocated,
        fulfillment: { state: "label_timeout", carrier: "UPS", tracking: null, last_event: "label request timed out" },
        duplicate: null,
        team: "Logistics",
      };
    case "fraud_review":
      return {
        status: "on_hold",
        payment: "authorized",
        allocations: allocated,
        fulfillment: { state: "on_hold", carrier: null, tracking: null, last_event: "held for fraud review" },
        duplicate: null,
        team: "Trust & Safety",
      };
    default:
      return {
        status: "processing",
        payment: "captured",
        allocations: allocated,
        fulfillment: { state: "picking", carrier: null, tracking: null, last_event: "picking started" },
        duplicate: null,
        team: "Specialists",
      };
  }
}

/** A unique id outside the public ORD-<number> sequence, so simulate_new_failure's numbering is untouched. */
export function freshOrderId(): string {
  return `TST-${crypto.randomUUID().replace(/-/g, "").slice(0, 12).toUpperCase()}`;
}

/**
 * Inserts one order with the chosen exception straight into D1, through the
 * store's own insert (as the seed loader writes orders), with its origin
 * event, and returns its id.
 */
export async function insertFreshOrder(options: FreshOrderOptions = {}): Promise<string> {
  await warmUp();
  const orderId = options.orderId ?? freshOrderId();
  const account = options.account ?? "acme";
  const kind = options.exception === undefined ? "fraud_review" : options.exception;
  const shape = shapeFor(kind);
  const now = Date.now();
  const openedMs =
    options.openedAt === undefined ? now - (options.openedMinutesAgo ?? 30) * 60_000 : Date.parse(options.openedAt);
  const opened = new Date(openedMs).toISOString();
  const created = new Date(openedMs - 5 * 60_000).toISOString();
  const paymentState = options.paymentState ?? shape.payment;
  const evidence: Evidence = {
    payment: {
      state: paymentState,
      attempts: [
        {
          attempt_id: `PAY-${orderId}-1`,
          at: created,
          amount_cents: 6600,
          method: "visa ending 4242",
          outcome: paymentState,
          decline_code: paymentState === "declined" ? "do_not_honor" : null,
        },
      ],
    },
    inventory: { allocations: shape.allocations },
    fulfillment: shape.fulfillment,
    duplicate: shape.duplicate,
    timeline: [{ at: created, event: "order_placed", detail: "placed via web (test fixture)" }],
  };
  const record = orderRecord({
    order_id: orderId,
    account,
    customer_id: options.customerId ?? "CUST-0001",
    channel: "web",
    total_cents: options.totalCents ?? 6600,
    status: options.status ?? shape.status,
    version: 1,
    lines: [
      { sku: "SKU-2240", quantity: 1, unit_price_cents: 4200 },
      { sku: "SKU-1180", quantity: 2, unit_price_cents: 1200 },
    ],
    shipping_address: options.address ?? DEFAULT_ADDRESS,
    evidence,
    exception:
      kind === null
        ? null
        : {
            type: kind,
            state: options.exceptionState ?? "active",
            priority: options.priority ?? "P2",
            team: shape.team,
            opened_at: opened,
            sla_minutes: options.slaMinutes ?? 120,
            summary: `test fixture: ${kind}`,
          },
    created_at: created,
    updated_at: created,
  });
  await insertOrderRecord(env.DB, record, "fail").run();
  // Like every order, a fixture has the event that says where it came from (see src/store/invariants.ts).
  if (options.originEvent === false) return orderId;
  await insertAuditEvent(env.DB, {
    event_id: `${orderId}:seeded`,
    account,
    order_id: orderId,
    event_type: "order_seeded",
    actor_kind: "system",
    actor: "test fixture",
    reason: "inserted by a test",
    proposal_id: null,
    state_before: null,
    state_after: null,
    created_at: created,
  }).run();
  return orderId;
}

export type RawRow = Record<string, unknown>;

/** The whole D1 row, every column, for byte-for-byte before/after comparisons. */
export async function readRow(account: string, orderId: string): Promise<RawRow> {
  await warmUp();
  const row = await env.DB.prepare("SELECT * FROM orders WHERE account = ? AND order_id = ?")
    .bind(account, orderId)
    .first<RawRow>();
  if (!row) throw new Error(`no row for ${account}/${orderId}`);
  return row;
}
