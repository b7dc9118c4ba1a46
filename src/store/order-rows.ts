import { AddressSchema, EvidenceSchema, ExceptionTypeSchema, PrioritySchema, type ExceptionState } from "../orders/evidence";
import type { OrderException, OrderRecord } from "../orders/order-record";
import { OrderLinesSchema } from "../orders/intake-schemas";
import type { OrderStatus } from "../orders/views";
import { JsonColumn } from "./json-columns";

const LINES = new JsonColumn(OrderLinesSchema);
const ADDRESSES = new JsonColumn(AddressSchema);
const EVIDENCE = new JsonColumn(EvidenceSchema);

export interface OrderRow {
  order_id: string;
  account: string;
  source: OrderRecord["source"];
  customer_id: string;
  channel: string;
  currency: string;
  total_cents: number;
  status: string;
  version: number;
  lines: string;
  shipping_address: string | null;
  evidence: string | null;
  exception_type: string | null;
  exception_state: ExceptionState | null;
  exception_priority: string | null;
  exception_team: string | null;
  exception_opened_at: string | null;
  exception_sla_minutes: number | null;
  exception_summary: string | null;
  created_at: string;
  updated_at: string;
}

const ORDER_COLUMNS = `order_id, account, source, customer_id, channel, currency, total_cents, status, version, lines,
  shipping_address, evidence, exception_type, exception_state, exception_priority, exception_team,
  exception_opened_at, exception_sla_minutes, exception_summary, created_at, updated_at`;

export type ExceptionColumns = Pick<
  OrderRow,
  "created_at" | "exception_type" | "exception_state" | "exception_priority" | "exception_team" | "exception_opened_at" | "exception_sla_minutes" | "exception_summary"
>;

export function exceptionFromRow(row: ExceptionColumns): OrderException | null {
  if (!row.exception_type || !row.exception_state) return null;
  return {
    type: ExceptionTypeSchema.parse(row.exception_type),
    state: row.exception_state,
    priority: PrioritySchema.parse(row.exception_priority ?? "P4"),
    team: row.exception_team ?? "unassigned",
    opened_at: row.exception_opened_at ?? row.created_at,
    sla_minutes: row.exception_sla_minutes ?? 0,
    summary: row.exception_summary ?? "",
  };
}

function recordFromRow(row: OrderRow): OrderRecord {
  const exception = exceptionFromRow(row);
  return {
    order_id: row.order_id,
    account: row.account,
    source: row.source,
    customer_id: row.customer_id,
    channel: row.channel,
    currency: row.currency,
    total_cents: row.total_cents,
    status: row.status,
    version: row.version,
    lines: LINES.parse(row.lines),
    shipping_address: row.shipping_address ? ADDRESSES.parse(row.shipping_address) : null,
    evidence: row.evidence ? EVIDENCE.parse(row.evidence) : null,
    exception,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/**
 * The insert for a whole operations order. `ignore` keeps an existing row
 * untouched (seed loads); `fail` makes a clash an error (new orders).
 */
export function insertOrderRecord(db: D1Database, order: OrderRecord, onConflict: "ignore" | "fail"): D1PreparedStatement {
  const exception = order.exception;
  return db
    .prepare(
      `INSERT ${onConflict === "ignore" ? "OR IGNORE " : ""}INTO orders (${ORDER_COLUMNS})
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .bind(
      order.order_id,
      order.account,
      order.source,
      order.customer_id,
      order.channel,
      order.currency,
      order.total_cents,
      order.status,
      order.version,
      JSON.stringify(order.lines),
      order.shipping_address ? JSON.stringify(order.shipping_address) : null,
      order.evidence ? JSON.stringify(order.evidence) : null,
      exception?.type ?? null,
      exception?.state ?? null,
      exception?.priority ?? null,
      exception?.team ?? null,
      exception?.opened_at ?? null,
      exception?.sla_minutes ?? null,
      exception?.summary ?? null,
      order.created_at,
      order.updated_at,
    );
}

/** Another account's order reads exactly like a missing one: undefined. */
export async function readOrderRecord(db: D1Database, account: string, orderId: string): Promise<OrderRecord | undefined> {
  const row = await db
    .prepare(`SELECT ${ORDER_COLUMNS} FROM orders WHERE order_id = ? AND account = ?`)
    .bind(orderId, account)
    .first<OrderRow>();
  return row ? recordFromRow(row) : undefined;
}

/** The three columns get_order_status answers with, without reading or parsing the rest of the order. */
export async function readOrderStatus(db: D1Database, account: string, orderId: string): Promise<OrderStatus | undefined> {
  const row = await db
    .prepare("SELECT order_id, status, version FROM orders WHERE order_id = ? AND account = ?")
    .bind(orderId, account)
    .first<OrderStatus>();
  return row ?? undefined;
}

/** Versions of many orders of one account in one statement (json_each sidesteps D1's bound-parameter limit). */
export async function readOrderVersions(db: D1Database, account: string, orderIds: readonly string[]): Promise<Map<string, number>> {
  const { results } = await db
    .prepare("SELECT order_id, version FROM orders WHERE account = ? AND order_id IN (SELECT value FROM json_each(?))")
    .bind(account, JSON.stringify(orderIds))
    .all<{ order_id: string; version: number }>();
  return new Map(results.map((row) => [row.order_id, row.version]));
}
