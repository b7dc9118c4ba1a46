import { sha256Hex } from "../core/encoding";
import { fail, ok, type Result } from "../core/errors";
import type { NewAuditEvent } from "../orders/audit-event";
import { insertAuditEvent } from "./audit-events";
import { orderDatabase } from "./seed-loader";
import type { OrderRecord } from "../orders/order-record";
import { orderState } from "../orders/order-state";
import { OrderLinesSchema, type IntakeCaller, type OrderReceipt, type OrderRequest, type OrderView } from "../orders/intake-schemas";

/**
 * D1 persistence for intake orders. request_id is the idempotency key: the
 * insert and the uniqueness check are one statement, so concurrent duplicates
 * cannot both create an order. A replay is recognised by comparing the stored
 * order with the one sent, so the insert, which every order pays, hashes
 * nothing; rows stored with a request_hash are still compared by it.
 */
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

interface StoredIntakeRow {
  order_id: string;
  customer_id: string;
  channel: string;
  currency: string;
  lines: string;
  total_cents: number;
  request_hash: string | null;
}

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

function receivedEvent(caller: IntakeCaller, orderId: string, order: OrderRequest, createdAt: string): NewAuditEvent {
  const record: OrderRecord = {
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
  return {
    event_id: `${orderId}:received`,
    account: caller.account,
    order_id: orderId,
    event_type: "order_received",
    actor_kind: "operator",
    actor: caller.actor,
    reason: `accepted by POST /api/orders with request_id ${order.request_id}`,
    proposal_id: null,
    state_before: null,
    state_after: orderState(record),
    created_at: createdAt,
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
  const lines = JSON.stringify(order.lines);
  for (let attempt = 0; attempt < MAX_ID_ATTEMPTS; attempt++) {
    const orderId = candidateOrderId(order.request_id, attempt);
    const insertOrder = db
      .prepare(
        `INSERT INTO orders (order_id, account, source, request_id, customer_id, channel, currency,
                             total_cents, status, version, lines, created_at, updated_at)
         VALUES (?, ?, 'intake', ?, ?, ?, ?, ?, 'accepted', 1, ?, ?, ?)
         ON CONFLICT DO NOTHING`,
      )
      .bind(
        orderId,
        account,
        order.request_id,
        order.customer_id,
        order.channel,
        order.currency,
        order.total_cents,
        lines,
        createdAt,
        createdAt,
      );
    // The order and its audit event land together; the event only if this request now owns the id.
    const [inserted] = await db.batch([
      insertOrder,
      insertAuditEvent(db, receivedEvent(caller, orderId, order, createdAt), {
        sql: "EXISTS (SELECT 1 FROM orders WHERE account = ? AND order_id = ? AND request_id = ?)",
        params: [account, orderId, order.request_id],
      }),
    ]);
    if (inserted?.meta.changes === 1) {
      return ok({ kind: "created", receipt: { order_id: orderId, customer_id: order.customer_id, lines: order.lines.length, total_cents: order.total_cents } });
    }
    const previous = await db
      .prepare("SELECT order_id, customer_id, channel, currency, lines, total_cents, request_hash FROM orders WHERE account = ? AND request_id = ?")
      .bind(account, order.request_id)
      .first<StoredIntakeRow>();
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
  return fail("conflict", `could not allocate an order id for request_id ${order.request_id}; use a request_id with a more distinctive prefix`);
}

interface OrderViewRow {
  order_id: string;
  customer_id: string;
  channel: string;
  currency: string;
  status: string;
  lines: string;
  total_cents: number;
  created_at: string;
}

/** Orders of other accounts are indistinguishable from unknown ones: both are undefined. */
export async function findOrderView(database: D1Database, account: string, orderId: string): Promise<OrderView | undefined> {
  const row = await (await orderDatabase(database))
    .prepare(
      "SELECT order_id, customer_id, channel, currency, status, lines, total_cents, created_at FROM orders WHERE order_id = ? AND account = ?",
    )
    .bind(orderId, account)
    .first<OrderViewRow>();
  if (!row) return undefined;
  return { ...row, lines: OrderLinesSchema.parse(JSON.parse(row.lines)) };
}
