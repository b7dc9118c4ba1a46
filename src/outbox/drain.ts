import { loadConfig } from "../config/config";
import { deploymentDatabase } from "../store/databases";
import { owedForDrain } from "../store/outbox-delivery";
import { enqueueOwed } from "./hand-off";

/** Rows handed over again per database in one run; a backlog larger than this drains over several minutes. */
export const DRAIN_LIMIT = 500;

/**
 * Hands the queue every row still owed whose hand-off may have been lost: a
 * row written but never enqueued (the Worker stopped between the commit and
 * the send), or enqueued and neither delivered nor retried for a while. Runs
 * on the cron trigger; a row the queue still holds may go out twice, which the
 * idempotency key lets a receiver ignore, and the consumer itself skips a
 * copy that arrives after the row was delivered.
 */
export async function drainOutbox(env: Env, now: Date = new Date()): Promise<{ readonly enqueued: number }> {
  const config = loadConfig(env);
  // A Worker that cannot read its configuration hands nothing over until it is fixed; loadConfig logged why.
  if (!config.ok) return { enqueued: 0 };
  // One database holds every account's rows today (store/databases.ts); with several, this runs over each.
  const db = deploymentDatabase(env);
  const owed = await owedForDrain(db, now, DRAIN_LIMIT);
  await enqueueOwed(env.OUTBOX_QUEUE, db, owed, now, config.value.outboxRedriveSeconds);
  return { enqueued: owed.length };
}
