import { orderState } from "../orders/order-state";
import { simulatedOrder } from "../orders/simulated-order";
import type { SimulatedFailure } from "../orders/tool-outputs";
import { insertAuditEvent } from "./audit-events";
import type { D1Queries } from "./d1-queries";
import { insertOrderRecord } from "./order-rows";

const MAX_NUMBER_ALLOCATIONS = 20;

/**
 * The account's next public order number whose id is still free. The counter
 * starts after the account's highest operations order; intake orders can hold
 * numeric ids too (request_id "1027" becomes ORD-1027), so a number already
 * taken is skipped rather than collided with.
 */
async function allocateFreeOrderNumber(db: D1Queries, account: string): Promise<number> {
  const sequence = `public_order:${account}`;
  for (let attempt = 0; attempt < MAX_NUMBER_ALLOCATIONS; attempt++) {
    const [, allocated] = await db.batch<{ number: number }>([
      db
        .prepare(
          `INSERT OR IGNORE INTO order_number_sequence (name, next_value)
           SELECT ?, COALESCE(MAX(CAST(SUBSTR(order_id, 5) AS INTEGER)), 1000) + 1 FROM orders
           WHERE account = ? AND source = 'operations' AND order_id GLOB 'ORD-[0-9]*'`,
        )
        .bind(sequence, account),
      db
        .prepare(
          "UPDATE order_number_sequence SET next_value = next_value + 1 WHERE name = ? RETURNING next_value - 1 AS number",
        )
        .bind(sequence),
    ]);
    const number = allocated?.results[0]?.number;
    if (number === undefined) throw new Error(`could not allocate an order number for ${account}`);
    const taken = await db
      .prepare("SELECT 1 AS present FROM orders WHERE account = ? AND order_id = ?")
      .bind(account, `ORD-${number}`)
      .first();
    if (!taken) return number;
  }
  throw new Error(`no free public order number after ${MAX_NUMBER_ALLOCATIONS} allocations`);
}

/**
 * Demo helper: one new order with an active exception. The public number comes
 * from one atomic UPDATE ... RETURNING, so concurrent calls never share one;
 * the order and its audit event are written together.
 */
export async function simulateFailure(
  db: D1Queries,
  account: string,
  actor: string,
  now: Date,
): Promise<SimulatedFailure> {
  const number = await allocateFreeOrderNumber(db, account);
  const order = simulatedOrder(account, number, now);
  const exception = order.exception;
  if (!exception) throw new Error("simulated order has no exception");
  await db.batch([
    insertOrderRecord(db, order, "fail"),
    insertAuditEvent(db, {
      event_id: `${order.order_id}:simulated`,
      account,
      order_id: order.order_id,
      event_type: "exception_simulated",
      actor_kind: "operator",
      actor,
      reason: "simulate_new_failure demo helper",
      proposal_id: null,
      state_before: null,
      state_after: orderState(order),
      created_at: order.created_at,
    }),
  ]);
  return {
    order_id: order.order_id,
    exception_type: exception.type,
    priority: exception.priority,
    summary: exception.summary,
    version: order.version,
  };
}
