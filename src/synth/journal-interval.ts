/**
 * How stale a batch's journaled running tally may grow. Each write to the
 * object's storage holds its outgoing requests until the write is durable, so
 * a tally written every few answers slowed the orders themselves; by time, a
 * batch that ends within a second writes only its opening and its close.
 *
 * Imports nothing: scripts/restart.ts bounds a crashed batch's journal lag by
 * it, and loads this file in Node as it is.
 */
export const JOURNAL_INTERVAL_MS = 1_000;
