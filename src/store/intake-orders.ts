/**
 * D1 persistence for intake orders. request_id is the idempotency key: the
 * insert and the uniqueness check are one statement, so concurrent duplicates
 * cannot both create an order. A replay is recognised by comparing the stored
 * order with the one sent, so the insert, which every order pays, hashes
 * nothing; rows stored with a request_hash are still compared by it.
 */
import { sha256Hex } from "../core/encoding";
import { fail, ok, type Result } from "../core/errors";
import type { NewAuditEvent } from "../orders/audit-event";
import {
  type IntakeCaller,
  OrderLinesSchema,
  type OrderReceipt,
  type OrderRequest,
  type OrderView,
} from "../orders/intake-schemas";
import type { OrderRecord } from "../orders/order-record";
import { orderState } from "../orders/order-state";
import { insertAuditEvent } from "./audit-events";
import { insertIntakeOrder, type OrderColumnsRow, selectOrders } from "./order-rows";
import { orderDatabase } from "./seed-loader";

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

const STORED_INTAKE_COLUMNS = [
  "order_id",
  "customer_id",
  "channel",
  "currency",
  "lines",
  "total_cents",
  "request_hash",
] as const;
type StoredIntakeRow = OrderColumnsRow<typeof STORED_INTAKE_COLUMNS>;
const SELECT_BY_REQUEST_SQL = `${selectOrders(STORED_INTAKE_COLUMNS)}WHERE account = ? AND request_id = ?`;
/** The order's id must still be this request's for its received event to be written. */
const OWNS_ORDER_ID_SQL = "EXISTS (SELECT 1 FROM orders WHERE account = ? AND order_id = ? AND request_id = ?)";

/**
 * Whether a stored order is the one this request sends again: every field
 * the request carries (no later change touches them: proposals change the
 * status, address, evidence and exception), or the hash of all of them.
 */
async function sameOrder(row: StoredIntakeRow, order: OrderRequest): Promise<boolean> {
  if (row.request_hash !== null) return row.request_hash === (await sha256Hex(JSON.stringify(order)));
  return (
    row.customer_id === order.customer_id &&
    row.channel === order.channel &&
    row.currency === order.currency &&
    row.total_cents === order.total_cents &&
    row.lines === JSON.stringify(order.lines)
  );
}

function receiptOf(row: StoredIntakeRow): OrderReceipt {
  const lines = OrderLinesSchema.parse(JSON.parse(row.lines));
  return { order_id: row.order_id, customer_id: row.customer_id, lines: lines.length, total_cents: row.total_cents };
}

/** The order as it is stored when it is accepted: version 1, nothing wrong with it. */
function acceptedRecord(caller: IntakeCaller, orderId: string, order: OrderRequest, createdAt: string): OrderRecord {
  return {
    order_id: orderId,
    account: caller.account,
    source: "intake",
    customer_id: order.customer_id,
    channel: order.channel,
    currency: order.currency,
    total_cents: order.total_cents,
    status: "accepted",
    version: 1,
    lines: order.lines,
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
  database: D1Database,
  caller: IntakeCaller,
  order: OrderRequest,
  now: Date = new Date(),
): Promise<Result<IntakeOutcome>> {
  const db = await orderDatabase(database);
  const { account } = caller;
  const createdAt = now.toISOString();
  for (let attempt = 0; attempt < MAX_ID_ATTEMPTS; attempt++) {
    const orderId = candidateOrderId(order.request_id, attempt);
    const record = acceptedRecord(caller, orderId, order, createdAt);
    // The order and its audit event land together; the event only if this request now owns the id.
    const [inserted] = await db.batch([
      insertIntakeOrder(db, record, { requestId: order.request_id, requestHash: null }),
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
      if (!(await sameOrder(previous, order))) {
        return fail(
          "conflict",
          `request_id ${order.request_id} was already used for a different order (${previous.order_id}); use a new request_id`,
        );
      }
      return ok({ kind: "replayed", receipt: receiptOf(previous) });
    }
    // Another request of this account holds this id: try the next candidate.
  }
  return fail(
    "conflict",
    `could not allocate an order id for request_id ${order.request_id}; use a request_id with a more distinctive prefix`,
  );
}

const ORDER_VIEW_COLUMNS = [
  "order_id",
  "customer_id",
  "channel",
  "currency",
  "status",
  "lines",
  "total_cents",
  "created_at",
] as const;
const SELECT_VIEW_SQL = `${selectOrders(ORDER_VIEW_COLUMNS)}WHERE order_id = ? AND account = ?`;

/** Orders of other accounts are indistinguishable from unknown ones: both are undefined. */
export async function findOrderView(
  database: D1Database,
  account: string,
  orderId: string,
): Promise<OrderView | undefined> {
  const row = await (await orderDatabase(database))
    .prepare(SELECT_VIEW_SQL)
    .bind(orderId, account)
    .first<OrderColumnsRow<typeof ORDER_VIEW_COLUMNS>>();
  if (!row) return undefined;
  return { ...row, lines: OrderLinesSchema.parse(JSON.parse(row.lines)) };
}
