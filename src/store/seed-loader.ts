/**
 * Loads the demo operations dataset into D1 once per database, where
 * DEMO_DATA asks for it (databases.ts decides). v2 also writes an
 * `order_seeded` event per order, so every order, seeded or not, has the
 * event that says where it came from; on a database loaded by v1 the orders
 * are left untouched and only the missing events are added.
 *
 * Demo data goes only into a database that holds no real order: one whose
 * orders all came from a seed. Loaded over real orders it mixed demo orders in
 * among them, and gave a real ORD-1001 (simulate_new_failure numbers orders as
 * the seed does) a demo `order_seeded` event about another customer, dated
 * before it existed. So the load is refused, with a sentence, where an order
 * has no seed behind it, and a seed event is written only beside its own order.
 */
import { fail, ok, type Result } from "../core/errors";

import { seedOrders, seedRecord } from "../orders/operations-seed";
import { orderState } from "../orders/order-state";
import { insertAuditEvent } from "./audit-events";
import { insertOrderRecord } from "./order-rows";

export const SEED_VERSION = "operations-v2";

export const REAL_ORDERS_REFUSAL =
  "DEMO_DATA is on, but this database already holds orders that are not demo data, so the demo orders were not loaded: mixing them in would give real orders a false history. Turn DEMO_DATA off for this database (npm run deploy -- --no-demo-data), or use an empty database for the demo.";

/** Orders with no seed behind them: no `order_seeded` event, on a database no earlier seed version loaded. */
const REAL_ORDER_SQL = `SELECT 1 AS present FROM orders o
  WHERE NOT EXISTS (SELECT 1 FROM seed_runs)
    AND NOT EXISTS (SELECT 1 FROM audit_events e
      WHERE e.account = o.account AND e.order_id = o.order_id AND e.event_type = 'order_seeded')
  LIMIT 1`;

/** The seed event's order: this seed's own row (same customer, same creation), never another order of that id. */
const OWN_ORDER_GUARD =
  "EXISTS (SELECT 1 FROM orders WHERE account = ? AND order_id = ? AND customer_id = ? AND source = 'operations')";

/**
 * Idempotent: every insert is OR IGNORE and the whole load is one D1 batch (one
 * transaction), so concurrent first requests cannot interleave half-loads.
 */
export async function loadSeed(db: D1Database, now: Date = new Date()): Promise<Result<"loaded" | "already_loaded">> {
  const existing = await db
    .prepare("SELECT 1 AS present FROM seed_runs WHERE seed_version = ?")
    .bind(SEED_VERSION)
    .first();
  if (existing) return ok("already_loaded");
  if (await db.prepare(REAL_ORDER_SQL).first()) return fail("conflict", REAL_ORDERS_REFUSAL);
  const anchorMs = Math.floor(now.getTime() / 60_000) * 60_000;
  const records = seedOrders().map((order) => seedRecord(order, anchorMs));
  await db.batch([
    db
      .prepare("INSERT OR IGNORE INTO seed_runs (seed_version, anchored_at) VALUES (?, ?)")
      .bind(SEED_VERSION, new Date(anchorMs).toISOString()),
    ...records.map((record) => insertOrderRecord(db, record, "ignore")),
    ...records.map((record) =>
      insertAuditEvent(
        db,
        {
          event_id: `${record.order_id}:seeded`,
          account: record.account,
          order_id: record.order_id,
          event_type: "order_seeded",
          actor_kind: "system",
          actor: "seed loader",
          reason: `loaded from seed/operations.json (${SEED_VERSION})`,
          proposal_id: null,
          state_before: null,
          state_after: orderState(record),
          created_at: record.created_at,
        },
        { sql: OWN_ORDER_GUARD, params: [record.account, record.order_id, record.customer_id] },
      ),
    ),
  ]);
  return ok("loaded");
}
