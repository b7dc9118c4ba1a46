/**
 * The append-only audit trail. Events are only ever inserted (triggers in
 * the migrations refuse UPDATE and DELETE), and each has a deterministic id
 * per state change, so a retried write cannot record one change twice.
 */

import type { StoredEventRow } from "../audit/chain-format";
import { AUDIT_EVENT_FIELDS, isStateField } from "../audit/event-fields";
import type { NewAuditEvent } from "../orders/audit-event";
import { type AuditPage, encodeAuditCursor } from "../orders/audit-page";
import { type AuditEvent, AuditEventSchema, type AuditLog } from "../orders/tool-outputs";
import type { D1Queries } from "./d1-queries";
import { columnList, placeholders } from "./sql-columns";

/** An event's values in AUDIT_EVENT_FIELDS order, its states as JSON text. */
function storedValues(event: NewAuditEvent): unknown[] {
  return AUDIT_EVENT_FIELDS.map((field) => {
    if (!isStateField(field)) return event[field];
    const state = event[field];
    return state ? JSON.stringify(state) : null;
  });
}

const INSERT_EVENT = `INSERT OR IGNORE INTO audit_events (${columnList(AUDIT_EVENT_FIELDS)})`;
const INSERT_EVENT_SQL = `${INSERT_EVENT} VALUES (${placeholders(AUDIT_EVENT_FIELDS)})`;
/** The guard's condition follows WHERE. */
const INSERT_GUARDED_EVENT_SQL = `${INSERT_EVENT} SELECT ${placeholders(AUDIT_EVENT_FIELDS)} WHERE `;

/**
 * The insert for one event. Without a guard it is idempotent (OR IGNORE);
 * with one, it is written only when the guard holds, inside the same batch as
 * the change it records.
 */
export function insertAuditEvent(
  db: D1Queries,
  event: NewAuditEvent,
  guard?: { sql: string; params: unknown[] },
): D1PreparedStatement {
  if (!guard) return db.prepare(INSERT_EVENT_SQL).bind(...storedValues(event));
  return db.prepare(INSERT_GUARDED_EVENT_SQL + guard.sql).bind(...storedValues(event), ...guard.params);
}

/** Idempotent by event_id: recording the same lifecycle event twice keeps one row. */
export async function recordAuditEvent(db: D1Queries, event: NewAuditEvent): Promise<void> {
  await insertAuditEvent(db, event).run();
}

type AuditRow = StoredEventRow & { entry: number };

// One row more than the page holds says whether there is a next page.
const SELECT_PAGE_SQL = `SELECT entry, ${columnList(AUDIT_EVENT_FIELDS)}
  FROM audit_events WHERE account = ?1 AND order_id = ?2 AND (created_at > ?3 OR (created_at = ?3 AND entry > ?4))
  ORDER BY created_at, entry LIMIT ?5`;

export async function readAuditLog(
  db: D1Queries,
  account: string,
  orderId: string,
  page: AuditPage,
): Promise<AuditLog | undefined> {
  const exists = await db
    .prepare("SELECT 1 AS present FROM orders WHERE order_id = ? AND account = ?")
    .bind(orderId, account)
    .first();
  if (!exists) return undefined;
  const after = page.after ?? { at: "", position: 0 };
  const { results } = await db
    .prepare(SELECT_PAGE_SQL)
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
  const next_cursor =
    results.length > page.limit && last ? encodeAuditCursor({ at: last.created_at, position: last.entry }) : null;
  return { order_id: orderId, events, next_cursor };
}
