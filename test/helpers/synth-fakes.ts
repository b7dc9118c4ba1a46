/**
 * Fakes for the synth unit tests: an order API target that answers as told,
 * and a BatchSender over it with an in-memory journal. (The load engine's
 * fakes are in run-fakes.ts.)
 */
import { ok, type Result } from "../../src/core/errors";
import type { Health, OrderRequest } from "../../src/orders/intake-schemas";
import { type BatchJournal, BatchSender } from "../../src/synth/batch-sender";
import type { BatchRecord, BatchSummary } from "../../src/synth/batch-summary";
import type { OrderApiTarget, PostedOrder } from "../../src/synth/order-api-target";
import type { TallySnapshot } from "../../src/synth/tally";

/** How an unreachable order API is introduced in every error about it. */
export const UNREACHABLE_PREFIX = "cannot reach the order API at ORDER_API (service binding in wrangler.toml): ";
export const HEALTHY: Health = { status: "ok", skus: 8, customers: 5 };

export interface FakeTarget extends OrderApiTarget {
  readonly posted: OrderRequest[];
  healthChecks: number;
}

export function fakeTarget(
  health: () => Result<Health>,
  post: (order: OrderRequest, index: number) => Result<PostedOrder> = () => ok({ status: 201, body: {} }),
): FakeTarget {
  const target: FakeTarget = {
    posted: [],
    healthChecks: 0,
    async health() {
      target.healthChecks++;
      return health();
    },
    async postOrder(order) {
      const index = target.posted.length;
      target.posted.push(order);
      await Promise.resolve();
      return post(order, index);
    },
  };
  return target;
}

export interface Recorded {
  kind: "completed" | "failed";
  summary: BatchSummary;
  error: string | null;
}

export const OPERATOR = "Unit Operator";

/** A journal write, with how many orders the target had been sent by then. */
export interface JournalWrite<T> {
  readonly posted: number;
  readonly value: T;
}

export interface Traffic {
  sender: BatchSender;
  recorded: Recorded[];
  opened: () => number;
  /** Every open, and every running-tally update, in order. */
  openings: JournalWrite<BatchRecord>[];
  updates: JournalWrite<TallySnapshot>[];
}

/**
 * A BatchSender over a fake target, with an in-memory journal. `recorded`
 * lists each batch as the journal holds it once closed, in the shape of the
 * batch summary that send_orders reports.
 */
export function traffic(target: FakeTarget, concurrency = 1, now: () => Date = () => new Date()): Traffic {
  const recorded: Recorded[] = [];
  const openings: JournalWrite<BatchRecord>[] = [];
  const updates: JournalWrite<TallySnapshot>[] = [];
  const open = new Map<string, BatchRecord>();
  let opened = 0;
  const journal: BatchJournal = {
    open(record) {
      opened++;
      openings.push({ posted: target.posted.length, value: record });
      open.set(record.batch_id, record);
    },
    update(batchId, tally) {
      if (!open.has(batchId)) throw new Error(`updated a batch that was never opened: ${batchId}`);
      updates.push({ posted: target.posted.length, value: tally });
    },
    close(batchId, tally, outcome, _finishedAt, error) {
      const record = open.get(batchId);
      if (!record) throw new Error(`closed a batch that was never opened: ${batchId}`);
      const { sent: _sent, ...counts } = tally;
      const {
        operator: _operator,
        started_at: _started,
        finished_at: _finished,
        outcome: _outcome,
        error: _error,
        ...summary
      } = record;
      recorded.push({ kind: outcome, summary: { ...summary, ...counts }, error });
    },
  };
  const sender = new BatchSender({
    target: () => target,
    maxBatch: 100,
    concurrency,
    journal,
    newBatchId: () => "B-test",
    now,
  });
  return { sender, recorded, opened: () => opened, openings, updates };
}
