/**
 * D1 persistence for intake orders. request_id is the idempotency key: the
 * insert and the uniqueness check are one statement, so concurrent duplicates
 * cannot both create an order. A replay is recognised by comparing the stored
 * order with the one sent, field by field, so the insert, which every order
 * pays, hashes nothing; rows stored with a request_hash are still compared by it.
 *
 * The request schema (OrderRequestSchema) is the one list of what is stored,
 * compared and shown: each of its fields is the column of its name (a field
 * without one does not compile), a replay must match every one, and the view
 * shows them all. A new intake field needs no change here.
 */
import { sha256Hex } from "../core/encoding";
import { fail, ok, type Result } from "../core/errors";
import { andList } from "../core/lists";
import type { NewAuditEvent } from "../orders/audit-event";
import {
  type IntakeCaller,
  OrderLinesSchema,
  type OrderReceipt,
  type OrderRequest,
  OrderRequestSchema,
  type OrderView,
  OrderViewSchema,
} from "../orders/intake-schemas";
import type { OrderRecord } from "../orders/order-record";
import { orderState } from "../orders/order-state";
import { insertAuditEvent } from "./audit-events";
import {
  type IntakeKey,
  insertIntakeOrder,
  intakeValues,
  type OrderColumn,
  type OrderColumnsRow,
  readOrderRecord,
  selectOrders,
} from "./order-rows";
import { type AccountReadSession, statementsOf } from "./read-session";

type IntakeOutcome = { kind: "created" | "replayed"; receipt: OrderReceipt };

const ORDER_ID_PREFIX_LENGTH = 8;
const MAX_ID_ATTEMPTS = 16;

/**
 * `manual-0001` becomes `ORD-manual-0`, the short id users of the seed expect.
 * When another request of the same account already holds that short id, the
 * full request_id is used instead (`ORD-manual-0002`), which is unique because
 * request_id is. Ids are unique per account, so other accounts never influence
 * which id an order gets.
 */
export function candidateOrderId(requestId: string, attempt: number): string {
  if (attempt === 0) return `ORD-${requestId.slice(0, ORDER_ID_PREFIX_LENGTH)}`;
  // A short request_id is its own prefix, so it goes straight to the suffixes.
  if (requestId.length <= ORDER_ID_PREFIX_LENGTH) return `ORD-${requestId}-${attempt + 1}`;
  return attempt === 1 ? `ORD-${requestId}` : `ORD-${requestId}-${attempt}`;
}

/** Columns named by a list of fields; a field that is not a column of the orders table does not compile. */
function columns<C extends OrderColumn>(fields: readonly C[]): readonly C[] {
  return fields;
}

/** Every field of the request, in the schema's order, each stored in the column of its name. */
const REQUEST_COLUMNS = columns(Object.keys(OrderRequestSchema.shape) as (keyof OrderRequest)[]);

const STORED_INTAKE_COLUMNS = columns(["order_id", ...REQUEST_COLUMNS, "request_hash"]);
type StoredIntakeRow = OrderColumnsRow<typeof STORED_INTAKE_COLUMNS>;
const SELECT_BY_REQUEST_SQL = `${selectOrders(STORED_INTAKE_COLUMNS)}WHERE account = ? AND request_id = ?`;
/** The order's id must still be this request's for its received event to be written. */
const OWNS_ORDER_ID_SQL = "EXISTS (SELECT 1 FROM orders WHERE account = ? AND order_id = ? AND request_id = ?)";

/** The key a new intake order is stored with: its request_id, and no hash (the fields are compared instead). */
const keyOf = (order: OrderRequest): IntakeKey => ({ requestId: order.request_id, requestHash: null });

/**
 * The fields of the request that differ from what the stored order holds:
 * none for a replay. Each field is compared as it is stored (the same
 * encoding the insert writes), so key order inside a line does not matter.
 * No later change touches these columns (a proposal changes the status,
 * address, evidence and exception). A row stored with the hash of its request
 * is compared by that hash, which cannot say which field differs: null.
 */
async function differingFields(
  row: StoredIntakeRow,
  sent: OrderRequest,
  caller: IntakeCaller,
): Promise<readonly string[] | null> {
  if (row.request_hash !== null) return row.request_hash === (await sha256Hex(JSON.stringify(sent))) ? [] : null;
  const wanted = intakeValues(acceptedRecord(caller, row.order_id, sent, ""), keyOf(sent), REQUEST_COLUMNS);
  return REQUEST_COLUMNS.filter((column, i) => row[column] !== wanted[i]);
}

/** Why a reused request_id is refused: the fields that differ, named. */
function reusedKey(requestId: string, orderId: string, differing: readonly string[] | null): string {
  const which = differing ? `, whose ${andList(differing)} ${differing.length === 1 ? "differs" : "differ"}` : "";
  return `request_id ${requestId} was already used for a different order (${orderId})${which}; use a new request_id`;
}

function receiptOf(row: StoredIntakeRow): OrderReceipt {
  const lines = OrderLinesSchema.parse(JSON.parse(row.lines));
  return { order_id: row.order_id, customer_id: row.customer_id, lines: lines.length, total_cents: row.total_cents };
}

/** The order as it is stored when it is accepted: version 1, nothing wrong with it. */
function acceptedRecord(caller: IntakeCaller, orderId: string, order: OrderRequest, createdAt: string): OrderRecord {
  const { request_id: _key, ...fields } = order;
  return {
    ...fields,
    order_id: orderId,
    account: caller.account,
    source: "intake",
    status: "accepted",
    version: 1,
    shipping_address: null,
    evidence: null,
    exception: null,
    created_at: createdAt,
    updated_at: createdAt,
  };
}

function receivedEvent(caller: IntakeCaller, record: OrderRecord, requestId: string): NewAuditEvent {
  return {
    event_id: `${record.order_id}:received`,
    account: caller.account,
    order_id: record.order_id,
    event_type: "order_received",
    actor_kind: "operator",
    actor: caller.actor,
    reason: `accepted by POST /api/orders with request_id ${requestId}`,
    proposal_id: null,
    state_before: null,
    state_after: orderState(record),
    created_at: record.created_at,
  };
}

export async function storeIntakeOrder(
  database: D1Database | AccountReadSession,
  caller: IntakeCaller,
  order: OrderRequest,
  now: Date = new Date(),
): Promise<Result<IntakeOutcome>> {
  const db = await statementsOf(database);
  const { account } = caller;
  const createdAt = now.toISOString();
  for (let attempt = 0; attempt < MAX_ID_ATTEMPTS; attempt++) {
    const orderId = candidateOrderId(order.request_id, attempt);
    const record = acceptedRecord(caller, orderId, order, createdAt);
    // The order and its audit event land together; the event only if this request now owns the id.
    const [inserted] = await db.batch([
      insertIntakeOrder(db, record, keyOf(order)),
      insertAuditEvent(db, receivedEvent(caller, record, order.request_id), {
        sql: OWNS_ORDER_ID_SQL,
        params: [account, orderId, order.request_id],
      }),
    ]);
    if (inserted?.meta.changes === 1) {
      return ok({
        kind: "created",
        receipt: {
          order_id: orderId,
          customer_id: order.customer_id,
          lines: order.lines.length,
          total_cents: order.total_cents,
        },
      });
    }
    const previous = await db.prepare(SELECT_BY_REQUEST_SQL).bind(account, order.request_id).first<StoredIntakeRow>();
    if (previous) {
      const differing = await differingFields(previous, order, caller);
      if (differing?.length === 0) return ok({ kind: "replayed", receipt: receiptOf(previous) });
      return fail("conflict", reusedKey(order.request_id, previous.order_id, differing));
    }
    // Another request of this account holds this id: try the next candidate.
  }
  return fail(
    "conflict",
    `could not allocate an order id for request_id ${order.request_id}; use a request_id with a more distinctive prefix`,
  );
}

/** Fields of the order record named by a list; a name that is not one does not compile. */
function recordFields<F extends keyof OrderRecord>(fields: readonly F[]): readonly F[] {
  return fields;
}

/** The view's fields: every stored request field, and the order's id, status and time. */
const VIEW_FIELDS = recordFields(Object.keys(OrderViewSchema.shape) as (keyof OrderView)[]);

/** Orders of other accounts are indistinguishable from unknown ones: both are undefined. */
export async function findOrderView(
  database: D1Database | AccountReadSession,
  account: string,
  orderId: string,
): Promise<OrderView | undefined> {
  const record = await readOrderRecord(await statementsOf(database), account, orderId);
  if (!record) return undefined;
  // The record holds every field of the view: each request field is a column, and a column is a record field.
  return Object.fromEntries(VIEW_FIELDS.map((field) => [field, record[field]])) as OrderView;
}
