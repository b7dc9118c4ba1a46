import { AuditEventSchema, type AuditEvent, type AuditLog } from "../orders/views";
import type { NewAuditEvent } from "../orders/audit-event";
import { encodeAuditCursor, type AuditPage } from "../orders/audit-page";
import type { StoredEventRow } from "../audit/chain-format";

/**
 * The append-only audit trail. Events are only ever inserted (triggers in
 * the migrations refuse UPDATE and DELETE), and each has a deterministic id
 * per state change, so a retried write cannot record one change twice.
 */
/**
 * The insert for one event. Without a guard it is idempotent (OR IGNORE);
 * with one, it is written only when the guard holds, inside the same batch as
 * the change it records.
 */
export function insertAuditEvent(db: D1Database, event: NewAuditEvent, guard?: { sql: string; params: unknown[] }): D1PreparedStatement {
  const values = [
    event.event_id,
    event.account,
    event.order_id,
    event.event_type,
    event.actor_kind,
    event.actor,
    event.reason,
    event.proposal_id,
    event.state_before ? JSON.stringify(event.state_before) : null,
    event.state_after ? JSON.stringify(event.state_after) : null,
    event.created_at,
  ];
  const columns = "event_id, account, order_id, event_type, actor_kind, actor, reason, proposal_id, state_before, state_after, created_at";
  if (!guard) {
    return db.prepare(`INSERT OR IGNORE INTO audit_events (${columns}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`).bind(...values);
  }
  return db
    .prepare(`INSERT OR IGNORE INTO audit_events (${columns}) SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ? WHERE ${guard.sql}`)
    .bind(...values, ...guard.params);
}

/** Idempotent by event_id: recording the same lifecycle event twice keeps one row. */
export async function recordAuditEvent(db: D1Database, event: NewAuditEvent): Promise<void> {
  await insertAuditEvent(db, event).run();
}

type AuditRow = Omit<StoredEventRow, "account" | "order_id"> & { entry: number };

export async function readAuditLog(db: D1Database, account: string, orderId: string, page: AuditPage): Promise<AuditLog | undefined> {
  const exists = await db.prepare("SELECT 1 AS present FROM orders WHERE order_id = ? AND account = ?").bind(orderId, account).first();
  if (!exists) return undefined;
  const after = page.after ?? { at: "", position: 0 };
  // One row more than the page holds says whether there is a next page.
  const { results } = await db
    .prepare(
      `SELECT entry, event_id, created_at, event_type, actor_kind, actor, reason, proposal_id, state_before, state_after
       FROM audit_events WHERE account = ?1 AND order_id = ?2 AND (created_at > ?3 OR (created_at = ?3 AND entry > ?4))
       ORDER BY created_at, entry LIMIT ?5`,
    )
    .bind(account, orderId, after.at, after.position, page.limit + 1)
    .all<AuditRow>();
  const rows = results.slice(0, page.limit);
  const events: AuditEvent[] = rows.map((row) =>
    AuditEventSchema.parse({
      event_id: row.event_id,
      at: row.created_at,
      event_type: row.event_type,
      actor_kind: row.actor_kind,
      actor: row.actor,
      reason: row.reason,
      proposal_id: row.proposal_id,
      state_before: row.state_before ? JSON.parse(row.state_before) : null,
      state_after: row.state_after ? JSON.parse(row.state_after) : null,
    }),
  );
  const last = rows.at(-1);
  const next_cursor = results.length > page.limit && last ? encodeAuditCursor({ at: last.created_at, position: last.entry }) : null;
  return { order_id: orderId, events, next_cursor };
}
