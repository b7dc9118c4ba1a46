/**
 * Loads the demo operations dataset into D1 once per database, where
 * DEMO_DATA asks for it (databases.ts decides). v2 also writes an
 * `order_seeded` event per order, so every order, seeded or not, has the
 * event that says where it came from; on a database loaded by v1 the orders
 * are left untouched and only the missing events are added.
 */

import { seedOrders, seedRecord } from "../orders/operations-seed";
import { orderState } from "../orders/order-state";
import { insertAuditEvent } from "./audit-events";
import { insertOrderRecord } from "./order-rows";

export const SEED_VERSION = "operations-v2";

/**
 * Idempotent: every insert is OR IGNORE and the whole load is one D1 batch (one
 * transaction), so concurrent first requests cannot interleave half-loads.
 */
export async function loadSeed(db: D1Database, now: Date = new Date()): Promise<"loaded" | "already_loaded"> {
  const existing = await db
    .prepare("SELECT 1 AS present FROM seed_runs WHERE seed_version = ?")
    .bind(SEED_VERSION)
    .first();
  if (existing) return "already_loaded";
  const anchorMs = Math.floor(now.getTime() / 60_000) * 60_000;
  const records = seedOrders().map((order) => seedRecord(order, anchorMs));
  await db.batch([
    db
      .prepare("INSERT OR IGNORE INTO seed_runs (seed_version, anchored_at) VALUES (?, ?)")
      .bind(SEED_VERSION, new Date(anchorMs).toISOString()),
    ...records.map((record) => insertOrderRecord(db, record, "ignore")),
    ...records.map((record) =>
      insertAuditEvent(db, {
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
      }),
    ),
  ]);
  return "loaded";
}
