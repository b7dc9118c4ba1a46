import type { OutboxEvent } from "../notify/events";

/**
 * The outbox's delivery bookkeeping: what the queue consumer, the dead-letter
 * consumer and the drain read and write. Ids go in as one JSON array
 * (json_each), so a drain of a hundred rows stays one statement under D1's
 * limit on bound parameters.
 */

export interface OutboxRow extends OutboxEvent {
  readonly enqueued_at: string | null;
  readonly delivered_at: string | null;
  readonly dead_lettered_at: string | null;
  readonly attempts: number;
  readonly last_status: number | null;
  readonly last_error: string | null;
  readonly drain_after: string;
}

/** A row the queue should carry, as its message names it. */
export interface OwedEvent {
  readonly event_id: string;
  readonly account: string;
}

/** An event given up on; its payload is the body that was not delivered, exactly as it was sent. */
export interface DeadLetter extends OutboxEvent {
  readonly attempts: number;
  /** The receiver's last HTTP status; null when it never answered. */
  readonly last_status: number | null;
  readonly reason: string;
  readonly dead_lettered_at: string;
}

export async function readOutboxRow(db: D1Database, eventId: string): Promise<OutboxRow | undefined> {
  return (await db.prepare("SELECT * FROM outbox WHERE event_id = ?").bind(eventId).first<OutboxRow>()) ?? undefined;
}

/** Handed to the queue at `at`; the drain leaves them alone until `drainAfter`. */
export async function markEnqueued(
  db: D1Database,
  eventIds: readonly string[],
  at: Date,
  drainAfter: Date,
): Promise<void> {
  if (eventIds.length === 0) return;
  await db
    .prepare("UPDATE outbox SET enqueued_at = ?, drain_after = ? WHERE event_id IN (SELECT value FROM json_each(?))")
    .bind(at.toISOString(), drainAfter.toISOString(), JSON.stringify(eventIds))
    .run();
}

export async function markDelivered(db: D1Database, eventId: string, status: number, at: Date): Promise<void> {
  await db
    .prepare(
      "UPDATE outbox SET delivered_at = ?, attempts = attempts + 1, last_status = ?, last_error = NULL WHERE event_id = ? AND delivered_at IS NULL",
    )
    .bind(at.toISOString(), status, eventId)
    .run();
}

/** An attempt that will be retried; the drain waits until `drainAfter`, past the retry's own delay. */
export async function recordFailedAttempt(
  db: D1Database,
  eventId: string,
  failure: { status: number | null; error: string; drainAfter: Date },
): Promise<void> {
  await db
    .prepare(
      "UPDATE outbox SET attempts = attempts + 1, last_status = ?, last_error = ?, drain_after = ? WHERE event_id = ? AND delivered_at IS NULL",
    )
    .bind(failure.status, failure.error, failure.drainAfter.toISOString(), eventId)
    .run();
}

/**
 * Gives up on a row: marks it in the outbox (so the drain stops owing it) and
 * copies it into dead_letters with the reason, in one batch. A row already
 * delivered (by another copy of its message) is left as it is.
 * `attempted` counts an attempt made just now, whose answer is `status`.
 */
export async function deadLetter(
  db: D1Database,
  eventId: string,
  death: { status: number | null; reason: string; attempted: boolean; at: Date },
): Promise<void> {
  const at = death.at.toISOString();
  await db.batch([
    db
      .prepare(
        `UPDATE outbox SET dead_lettered_at = ?, attempts = attempts + ?, last_status = COALESCE(?, last_status), last_error = ?
         WHERE event_id = ? AND delivered_at IS NULL AND dead_lettered_at IS NULL`,
      )
      .bind(at, death.attempted ? 1 : 0, death.status, death.reason, eventId),
    db
      .prepare(
        `INSERT INTO dead_letters (event_id, account, destination, event_type, payload, created_at, attempts, last_status, reason, dead_lettered_at)
         SELECT event_id, account, destination, event_type, payload, created_at, attempts, last_status, last_error, dead_lettered_at
         FROM outbox WHERE event_id = ? AND dead_lettered_at IS NOT NULL
         ON CONFLICT (event_id) DO NOTHING`,
      )
      .bind(eventId),
  ]);
}

/** Rows still owed whose hand-off may have been lost, the longest overdue first. */
export async function owedForDrain(db: D1Database, now: Date, limit: number): Promise<OwedEvent[]> {
  const { results } = await db
    .prepare(
      `SELECT event_id, account FROM outbox
       WHERE delivered_at IS NULL AND dead_lettered_at IS NULL AND drain_after <= ?
       ORDER BY drain_after LIMIT ?`,
    )
    .bind(now.toISOString(), limit)
    .all<OwedEvent>();
  return results;
}

/** One account's dead letters, newest first. */
export async function listDeadLetters(db: D1Database, account: string, limit = 50): Promise<DeadLetter[]> {
  const { results } = await db
    .prepare("SELECT * FROM dead_letters WHERE account = ? ORDER BY dead_lettered_at DESC, event_id LIMIT ?")
    .bind(account, limit)
    .all<DeadLetter>();
  return results;
}

export async function countDeadLetters(db: D1Database, account: string): Promise<number> {
  const row = await db
    .prepare("SELECT count(*) AS n FROM dead_letters WHERE account = ?")
    .bind(account)
    .first<{ n: number }>();
  return row?.n ?? 0;
}
