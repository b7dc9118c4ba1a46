import { type OutboxContext, type OutboxEvent, outboxEventsFor } from "../notify/events";
import { HAND_OFF_GRACE_SECONDS } from "../notify/retry-policy";
import type { NewAuditEvent } from "../orders/audit-event";
import { insertAuditEvent } from "./audit-events";
import type { D1Queries } from "./d1-queries";

/**
 * The transactional outbox's write side. The rows that announce a change go
 * into the same D1 batch as the change and its audit event, which D1 runs as
 * one transaction: an event and its outbox rows exist together or not at all.
 * Only after the commit are the rows handed to the queue, so no receiver ever
 * hears of a change that was rolled back.
 */
export interface OutboxWriter extends OutboxContext {
  /**
   * Told after the commit with the rows this write added (never rows that
   * were already there, as when a retried write finds its event). Best
   * effort: whatever it misses, the scheduled drain hands over later.
   */
  handOff(events: readonly OutboxEvent[]): void;
}

/** No webhook configured: no rows, nothing to hand off. */
export const NO_OUTBOX: OutboxWriter = { destinations: [], approvalUrl: () => "", handOff: () => undefined };

/** A condition the change's statements share (see insertAuditEvent): the rows are written only when it holds. */
type Guard = { sql: string; params: unknown[] };

function insertOutboxEvent(
  db: D1Queries,
  event: OutboxEvent,
  drainAfter: string,
  guard: Guard | undefined,
): D1PreparedStatement {
  const columns = "event_id, account, destination, event_type, payload, created_at, drain_after";
  const values = [
    event.event_id,
    event.account,
    event.destination,
    event.event_type,
    event.payload,
    event.created_at,
    drainAfter,
  ];
  // ON CONFLICT rather than OR IGNORE: a repeated id is skipped, but a row the
  // table's checks refuse must fail the whole batch, not vanish from it.
  if (!guard)
    return db
      .prepare(`INSERT INTO outbox (${columns}) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (event_id) DO NOTHING`)
      .bind(...values);
  return db
    .prepare(
      `INSERT INTO outbox (${columns}) SELECT ?, ?, ?, ?, ?, ?, ? WHERE ${guard.sql} ON CONFLICT (event_id) DO NOTHING`,
    )
    .bind(...values, ...guard.params);
}

/**
 * Runs `change` (whose statements include `event`'s audit insert) and the
 * event's outbox rows as one batch, then hands the rows it wrote to the
 * writer. Returns the batch's results, `change`'s first.
 */
export async function batchWithOutbox(
  db: D1Queries,
  outbox: OutboxWriter,
  change: D1PreparedStatement[],
  event: NewAuditEvent,
  guard?: Guard,
): Promise<D1Result[]> {
  const events = outboxEventsFor(event, outbox);
  // Bookkeeping runs on the wall clock, whatever clock stamped the event.
  const drainAfter = new Date(Date.now() + HAND_OFF_GRACE_SECONDS * 1000).toISOString();
  const results = await db.batch([...change, ...events.map((row) => insertOutboxEvent(db, row, drainAfter, guard))]);
  const written = events.filter((_, index) => (results[change.length + index]?.meta.changes ?? 0) > 0);
  if (written.length > 0) outbox.handOff(written);
  return results;
}

/** Idempotent by event id, like recordAuditEvent, with the event's outbox rows in the same batch. */
export async function recordAuditEventWithOutbox(
  db: D1Queries,
  event: NewAuditEvent,
  outbox: OutboxWriter,
): Promise<void> {
  await batchWithOutbox(db, outbox, [insertAuditEvent(db, event)], event);
}
