import { ok, type Result } from "../../src/core/errors";
import type { Health, OrderRequest } from "../../src/orders/intake-schemas";
import { BatchSender, type BatchJournal } from "../../src/synth/batch-sender";
import type { BatchRecord, BatchSummary } from "../../src/synth/batch-summary";
import { unreachable, type OrderApiTarget, type PostedOrder } from "../../src/synth/order-api-target";
import { planRun, type RunPlan, type RunRequest } from "../../src/synth/run-plan";
import type { TallySnapshot } from "../../src/synth/tally";
import { TrafficRunner, type RunState } from "../../src/synth/traffic-run";

/**
 * Fakes for the synth unit tests: an order API target that answers as told,
 * a BatchSender over it with an in-memory journal, and a TrafficRunner on a
 * clock the test moves against a fake API with the order API's idempotency.
 */

/** How an unreachable order API is introduced in every error about it. */
export const UNREACHABLE_PREFIX = "cannot reach the order API at ORDER_API (service binding in wrangler.toml): ";
export const HEALTHY: Health = { status: "ok", skus: 8, customers: 5 };
/** The traffic-run caps of the test environment's defaults. */
export const RUN_CAPS = { maxRate: 50, maxSeconds: 900, maxOrders: 20_000 };

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
export function traffic(target: FakeTarget, concurrency = 1): Traffic {
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
      const { operator: _operator, started_at: _started, finished_at: _finished, outcome: _outcome, error: _error, ...summary } = record;
      recorded.push({ kind: outcome, summary: { ...summary, ...counts }, error });
    },
  };
  const sender = new BatchSender({
    target: () => target,
    maxBatch: 100,
    concurrency,
    journal,
    newBatchId: () => "B-test",
    now: () => new Date(),
  });
  return { sender, recorded, opened: () => opened, openings, updates };
}

// ------------------------------------------------------------ traffic runs

export class FakeApi implements OrderApiTarget {
  readonly stored = new Set<string>();
  readonly posts: string[] = [];
  down = false;
  /** The health check answers while every order fails, as behind a broken route or a full disk. */
  postsDown = false;

  async health(): Promise<Result<Health>> {
    return this.down ? unreachable("connection refused") : ok(HEALTHY);
  }

  async postOrder(order: OrderRequest): Promise<Result<PostedOrder>> {
    if (this.down || this.postsDown) return unreachable("connection refused");
    this.posts.push(order.request_id);
    if (this.stored.has(order.request_id)) return ok({ status: 200, body: {} });
    this.stored.add(order.request_id);
    return ok({ status: 201, body: {} });
  }
}

export function plan(request: Partial<RunRequest> = {}, seed = 4242): RunPlan {
  const result = planRun({ rate_per_second: 10, duration_seconds: 5, mode: "seeded", ramp_seconds: 0, ...request }, seed, RUN_CAPS);
  if (!result.ok) throw new Error(result.error.message);
  return result.value;
}

export function harness(maxPauseSeconds = 10) {
  let now = Date.parse("2026-12-01T10:00:00.000Z");
  const clock = { now: () => now, advance: (ms: number) => (now += ms) };
  let runs = 0;
  const runner = (): TrafficRunner => new TrafficRunner({ now: clock.now, newRunId: () => `R-${++runs}`, concurrency: 4, maxPauseSeconds });
  return { clock, runner };
}

/** Ticks once a second until the run ends (or `limit` ticks pass). */
export async function runToEnd(runner: TrafficRunner, state: RunState, api: FakeApi, advance: (ms: number) => void, limit = 100): Promise<RunState> {
  let current = state;
  for (let i = 0; i < limit && current.summary.status === "running"; i++) {
    advance(1000);
    current = (await runner.tick(current, api, () => false)).state;
  }
  return current;
}
