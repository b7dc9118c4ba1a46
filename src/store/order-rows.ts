/**
 * The orders table, listed once. ORDER_COLUMNS says how an order record fills
 * each column; the row type, the inserts and every select's column list are
 * built from it, so a new column is one entry here (and its migration), and
 * the compiler then names the way back to a record (recordFromRow).
 */
import { AddressSchema, EvidenceSchema, ExceptionTypeSchema, PrioritySchema } from "../orders/evidence";
import { OrderLinesSchema } from "../orders/intake-schemas";
import type { OrderException, OrderRecord } from "../orders/order-record";
import type { OrderStatus } from "../orders/tool-outputs";
import type { D1Queries } from "./d1-queries";
import { JsonColumn } from "./json-columns";
import { columnList, placeholders } from "./sql-columns";

const LINES = new JsonColumn(OrderLinesSchema);
const ADDRESSES = new JsonColumn(AddressSchema);
const EVIDENCE = new JsonColumn(EvidenceSchema);

const json = (value: unknown): string | null => (value === null ? null : JSON.stringify(value));

/**
 * Every column an order record fills, in insert order. Values read back are
 * parsed where they are JSON or an enum, so those columns are typed as the
 * text they are stored as.
 */
const ORDER_COLUMNS = {
  order_id: (order: OrderRecord) => order.order_id,
  account: (order: OrderRecord) => order.account,
  source: (order: OrderRecord) => order.source,
  customer_id: (order: OrderRecord) => order.customer_id,
  channel: (order: OrderRecord) => order.channel,
  currency: (order: OrderRecord) => order.currency,
  total_cents: (order: OrderRecord) => order.total_cents,
  status: (order: OrderRecord) => order.status,
  version: (order: OrderRecord) => order.version,
  lines: (order: OrderRecord): string => JSON.stringify(order.lines),
  shipping_address: (order: OrderRecord) => json(order.shipping_address),
  evidence: (order: OrderRecord) => json(order.evidence),
  exception_type: (order: OrderRecord): string | null => order.exception?.type ?? null,
  exception_state: (order: OrderRecord) => order.exception?.state ?? null,
  exception_priority: (order: OrderRecord): string | null => order.exception?.priority ?? null,
  exception_team: (order: OrderRecord) => order.exception?.team ?? null,
  exception_opened_at: (order: OrderRecord) => order.exception?.opened_at ?? null,
  exception_sla_minutes: (order: OrderRecord) => order.exception?.sla_minutes ?? null,
  exception_summary: (order: OrderRecord) => order.exception?.summary ?? null,
  created_at: (order: OrderRecord) => order.created_at,
  updated_at: (order: OrderRecord) => order.updated_at,
} as const;

/** An orders row as an order record is stored. */
export type OrderRow = { [C in keyof typeof ORDER_COLUMNS]: ReturnType<(typeof ORDER_COLUMNS)[C]> };

/** The two columns only an intake order fills: its idempotency key, and the hash of the order posted with it. */
interface IntakeKeyRow {
  request_id: string | null;
  request_hash: string | null;
}

/**
 * An intake order's key: the request_id it was posted with, and (for rows stored before replays compared fields) a hash
 * of the request.
 */
export interface IntakeKey {
  readonly requestId: string;
  readonly requestHash: string | null;
}

/** Any column of the orders table, for a select that reads only some of them. */
export type OrderColumn = keyof OrderRow | keyof IntakeKeyRow;

/** The row a select of these columns answers. */
export type OrderColumnsRow<C extends readonly OrderColumn[]> = Pick<OrderRow & IntakeKeyRow, C[number]>;

/** Every column an order record fills, in insert order. */
export const RECORD_COLUMNS = Object.keys(ORDER_COLUMNS) as (keyof OrderRow)[];

/** Every column of the orders table: an intake order fills them all. */
export const ORDERS_TABLE_COLUMNS = [
  ...RECORD_COLUMNS,
  "request_id",
  "request_hash",
] as const satisfies readonly OrderColumn[];

/** The value of each record column, in RECORD_COLUMNS order. */
function recordValues(order: OrderRecord): unknown[] {
  return RECORD_COLUMNS.map((column) => ORDER_COLUMNS[column](order));
}

/** `SELECT <columns> FROM orders `, for a statement to add its WHERE to. */
export function selectOrders(columns: readonly OrderColumn[]): string {
  return `SELECT ${columnList(columns)} FROM orders `;
}

export const EXCEPTION_COLUMNS = [
  "created_at",
  "exception_type",
  "exception_state",
  "exception_priority",
  "exception_team",
  "exception_opened_at",
  "exception_sla_minutes",
  "exception_summary",
] as const satisfies readonly OrderColumn[];

export function exceptionFromRow(row: OrderColumnsRow<typeof EXCEPTION_COLUMNS>): OrderException | null {
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

/** What an intake order stores in these columns: its record's values, and its key. */
export function intakeValues(order: OrderRecord, key: IntakeKey, columns: readonly OrderColumn[]): unknown[] {
  return columns.map((column) => {
    if (column === "request_id") return key.requestId;
    if (column === "request_hash") return key.requestHash;
    return ORDER_COLUMNS[column](order);
  });
}

/** The written columns' values for an UPDATE, taken from the order after the change. */
export function columnValues(order: OrderRecord, columns: readonly (keyof OrderRow)[]): unknown[] {
  return columns.map((column) => ORDER_COLUMNS[column](order));
}

const INSERT_RECORD = `INTO orders (${columnList(RECORD_COLUMNS)}) VALUES (${placeholders(RECORD_COLUMNS)})`;
const INSERT_RECORD_SQL = { ignore: `INSERT OR IGNORE ${INSERT_RECORD}`, fail: `INSERT ${INSERT_RECORD}` } as const;
const INSERT_INTAKE_SQL = `INSERT INTO orders (${columnList(ORDERS_TABLE_COLUMNS)}) VALUES (${placeholders(ORDERS_TABLE_COLUMNS)}) ON CONFLICT DO NOTHING`;
const SELECT_RECORD_SQL = `${selectOrders(RECORD_COLUMNS)}WHERE order_id = ? AND account = ?`;
const STATUS_COLUMNS = ["order_id", "status", "version"] as const satisfies readonly (keyof OrderStatus &
  OrderColumn)[];
const SELECT_STATUS_SQL = `${selectOrders(STATUS_COLUMNS)}WHERE order_id = ? AND account = ?`;
const SELECT_VERSIONS_SQL = `${selectOrders(["order_id", "version"])}WHERE account = ? AND order_id IN (SELECT value FROM json_each(?))`;

/**
 * The insert for a whole operations order. `ignore` keeps an existing row
 * untouched (seed loads); `fail` makes a clash an error (new orders).
 */
export function insertOrderRecord(
  db: D1Queries,
  order: OrderRecord,
  onConflict: "ignore" | "fail",
): D1PreparedStatement {
  return db.prepare(INSERT_RECORD_SQL[onConflict]).bind(...recordValues(order));
}

/**
 * The insert for an intake order with its idempotency key. It does nothing
 * when the account already holds the order id or the request_id.
 */
export function insertIntakeOrder(db: D1Queries, order: OrderRecord, key: IntakeKey): D1PreparedStatement {
  return db.prepare(INSERT_INTAKE_SQL).bind(...intakeValues(order, key, ORDERS_TABLE_COLUMNS));
}

/** Another account's order reads exactly like a missing one: undefined. */
export async function readOrderRecord(
  db: D1Queries,
  account: string,
  orderId: string,
): Promise<OrderRecord | undefined> {
  const row = await db.prepare(SELECT_RECORD_SQL).bind(orderId, account).first<OrderRow>();
  return row ? recordFromRow(row) : undefined;
}

/** The three columns get_order_status answers with, without reading or parsing the rest of the order. */
export async function readOrderStatus(
  db: D1Queries,
  account: string,
  orderId: string,
): Promise<OrderStatus | undefined> {
  const row = await db.prepare(SELECT_STATUS_SQL).bind(orderId, account).first<OrderStatus>();
  return row ?? undefined;
}

/** Versions of many orders of one account in one statement (json_each sidesteps D1's bound-parameter limit). */
export async function readOrderVersions(
  db: D1Queries,
  account: string,
  orderIds: readonly string[],
): Promise<Map<string, number>> {
  const { results } = await db
    .prepare(SELECT_VERSIONS_SQL)
    .bind(account, JSON.stringify(orderIds))
    .all<OrderColumnsRow<["order_id", "version"]>>();
  return new Map(results.map((row) => [row.order_id, row.version]));
}
