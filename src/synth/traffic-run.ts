import { z } from "zod/v4";
import type { OrderRequest } from "../orders/intake-schemas";
import { referenceData, type ReferenceData } from "../orders/reference-data";
import { orderStream } from "./generators";
import type { OrderApiTarget } from "./order-api-target";
import { dueBy, type RunPlan } from "./run-plan";
import { MAX_RUN_REASONS, RunSummarySchema, type RunInterval } from "./run-schemas";
import { answerOf } from "./send-batch";

/**
 * One sustained run, advanced one tick at a time by the account's object.
 * A tick sends the orders the schedule says are due, measures how fast the
 * target answers, and returns the new state to persist. Everything needed to
 * resume lives in that state, so a run survives eviction and restarts: order
 * i of a run is always order i of its seed's stream, so a re-sent order has
 * the same request_id and the target answers it 200 without a duplicate.
 */
const RunCursorSchema = z.object({
  /** Every order below this index has been answered. */
  next_index: z.number().int(),
  /** Orders above next_index already answered (at most the concurrency). */
  ahead: z.array(z.number().int()),
  /** When the schedule started, shifted forward by every pause, so a resumed run does not burst. */
  schedule_start_ms: z.number(),
  last_tick_ms: z.number(),
  /**
   * When the target stopped taking orders; only an answered order clears it.
   * A pause ends whenever GET /api/health answers, so without this a target
   * whose health check works while every POST fails would pause and resume
   * forever. Absent in runs stored before it existed.
   */
  unreachable_since_ms: z.number().nullable().default(null),
});

export const RunStateSchema = z.object({
  summary: RunSummarySchema.omit({ run_url: true }),
  cursor: RunCursorSchema,
});
export type RunState = z.infer<typeof RunStateSchema>;

interface TickOutcome {
  readonly state: RunState;
  /** What this tick sent; null when it sent nothing (paused, finished). */
  readonly interval: RunInterval | null;
  /** When to tick next; null when the run is over. */
  readonly nextTickMs: number | null;
}

interface TrafficRunnerDeps {
  readonly now: () => number;
  readonly newRunId: () => string;
  readonly concurrency: number;
  /** How long a run may wait for an unreachable target before it fails. */
  readonly maxPauseSeconds: number;
  readonly reference?: ReferenceData;
}

const TICK_MS = 1000;
/** While paused, how often the target's health is asked again. */
const PAUSE_RETRY_MS = 2000;
/**
 * A tick sends at most this many seconds' worth of the full rate. A slow
 * target makes a tick long, and the next one finds that much more due; the
 * cap keeps one tick from growing without bound (the backlog goes out over
 * the following ticks).
 */
export const MAX_TICK_SECONDS = 2;
/** A gap between ticks longer than this is downtime (eviction, restart), not lateness. */
const DOWNTIME_GAP_MS = 5 * TICK_MS;
/** After downtime this long, a run is not resumed: the load it describes is long past. */
export const RESUME_WINDOW_MS = 10 * 60_000;

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return Math.round((sorted[index] ?? 0) * 10) / 10;
}

export class TrafficRunner {
  /** One generator per run, positioned at the next index it will be asked for; rebuilt after a restart. */
  private readonly streams = new Map<string, { stream: Iterator<OrderRequest>; position: number }>();
  private readonly reference: ReferenceData;

  constructor(private readonly deps: TrafficRunnerDeps) {
    this.reference = deps.reference ?? referenceData;
  }

  newState(plan: RunPlan, operator: string): RunState {
    const now = this.deps.now();
    return {
      summary: {
        run_id: this.deps.newRunId(),
        status: "running",
        operator,
        started_at: new Date(now).toISOString(),
        finished_at: null,
        plan,
        sent: 0,
        accepted: 0,
        rejected: 0,
        status_counts: {},
        current_rate: 0,
        rejection_reasons: [],
        paused: null,
        problem: null,
      },
      cursor: { next_index: 0, ahead: [], schedule_start_ms: now, last_tick_ms: now, unreachable_since_ms: null },
    };
  }

  forget(runId: string): void {
    this.streams.delete(runId);
  }

  /** Order `index` of the run, drawing the stream forward (never backward: indices only grow). */
  private orderAt(state: RunState, index: number): OrderRequest {
    const runId = state.summary.run_id;
    let entry = this.streams.get(runId);
    if (!entry || entry.position > index) {
      entry = { stream: orderStream(state.summary.plan.mode, state.summary.plan.seed, this.reference), position: 0 };
      this.streams.set(runId, entry);
    }
    let order = entry.stream.next().value as OrderRequest;
    entry.position++;
    while (entry.position <= index) {
      order = entry.stream.next().value as OrderRequest;
      entry.position++;
    }
    return order;
  }

  private finish(state: RunState, status: "completed" | "failed" | "interrupted", now: number, problem: string | null): TickOutcome {
    this.forget(state.summary.run_id);
    return {
      state: { ...state, summary: { ...state.summary, status, finished_at: new Date(now).toISOString(), problem, paused: null, current_rate: 0 } },
      interval: null,
      nextTickMs: null,
    };
  }

  /** `stopped` is asked between sends, so a stop takes effect within one request per worker. */
  async tick(current: RunState, target: OrderApiTarget, stopped: () => boolean): Promise<TickOutcome> {
    const now = this.deps.now();
    let state: RunState = { summary: { ...current.summary }, cursor: { ...current.cursor } };
    const { plan } = state.summary;

    const gap = now - state.cursor.last_tick_ms;
    if (gap > RESUME_WINDOW_MS) {
      const minutes = Math.round(gap / 60_000);
      return this.finish(
        state,
        "interrupted",
        now,
        `the server was unavailable for ${minutes} minutes while this run was going, so it was not resumed; ${state.summary.sent} of ${plan.total_orders} orders were sent. Start it again with the same seed to continue: orders already sent are answered 200 and not duplicated.`,
      );
    }
    if (gap > DOWNTIME_GAP_MS) state.cursor.schedule_start_ms += gap - TICK_MS;

    if (state.summary.paused) {
      const since = Date.parse(state.summary.paused.since);
      const health = await target.health();
      if (!health.ok) {
        const away = now - (state.cursor.unreachable_since_ms ?? since);
        if (away >= this.deps.maxPauseSeconds * 1000) {
          return this.finish(state, "failed", now, `the order API stayed unreachable for ${Math.round(away / 1000)} s, so the run gave up: ${health.error.message}`);
        }
        return { state: { ...state, cursor: { ...state.cursor, last_tick_ms: now } }, interval: null, nextTickMs: now + PAUSE_RETRY_MS };
      }
      state.cursor.schedule_start_ms += now - since;
      state.summary.paused = null;
    }

    const elapsed = (now - state.cursor.schedule_start_ms) / 1000;
    const due = Math.min(plan.total_orders, dueBy(plan, elapsed));
    const ahead = new Set(state.cursor.ahead);
    const pending: number[] = [];
    const most = Math.max(1, Math.ceil(plan.rate_per_second * MAX_TICK_SECONDS));
    for (let index = state.cursor.next_index; index < due && pending.length < most; index++) if (!ahead.has(index)) pending.push(index);

    const latencies: number[] = [];
    const answered: number[] = [];
    const counts = { accepted: 0, rejected: 0 };
    const statusCounts = { ...state.summary.status_counts };
    const reasons = [...state.summary.rejection_reasons];
    let unreachable: string | undefined;
    let cursor = 0;

    const worker = async (): Promise<void> => {
      while (unreachable === undefined && cursor < pending.length && !stopped()) {
        const index = pending[cursor++];
        if (index === undefined) return;
        const order = this.orderAt(state, index);
        const started = performance.now();
        const posted = await target.postOrder(order);
        if (!posted.ok) {
          unreachable ??= posted.error.message;
          return;
        }
        latencies.push(performance.now() - started);
        answered.push(index);
        const answer = answerOf(order, posted.value);
        const key = String(answer.status);
        statusCounts[key] = (statusCounts[key] ?? 0) + 1;
        if (answer.kind === "accepted") {
          counts.accepted++;
        } else {
          counts.rejected++;
          if (reasons.length < MAX_RUN_REASONS && !reasons.includes(answer.reason)) reasons.push(answer.reason);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.min(this.deps.concurrency, pending.length)) }, worker));

    for (const index of answered) ahead.add(index);
    let next = state.cursor.next_index;
    while (ahead.has(next)) ahead.delete(next++);
    const finishedAt = this.deps.now();
    const seconds = Math.max(0.001, (finishedAt - state.cursor.last_tick_ms) / 1000);
    latencies.sort((a, b) => a - b);
    const interval: RunInterval | null =
      answered.length === 0
        ? null
        : {
            // Wall-clock, not schedule, seconds: the schedule shifts past pauses, the chart should show them.
            at_second: Math.round((now - Date.parse(state.summary.started_at)) / 100) / 10,
            sent: answered.length,
            accepted: counts.accepted,
            rejected: counts.rejected,
            latency_p50_ms: percentile(latencies, 50),
            latency_p95_ms: percentile(latencies, 95),
          };
    state = {
      summary: {
        ...state.summary,
        sent: state.summary.sent + answered.length,
        accepted: state.summary.accepted + counts.accepted,
        rejected: state.summary.rejected + counts.rejected,
        status_counts: statusCounts,
        rejection_reasons: reasons,
        current_rate: Math.round((answered.length / seconds) * 10) / 10,
      },
      cursor: {
        ...state.cursor,
        next_index: next,
        ahead: [...ahead].sort((a, b) => a - b),
        last_tick_ms: finishedAt,
        unreachable_since_ms: answered.length > 0 ? null : state.cursor.unreachable_since_ms,
      },
    };

    if (next >= plan.total_orders) return { ...this.finish(state, "completed", finishedAt, null), interval };
    if (unreachable !== undefined && answered.length === 0) {
      const unreachableSince = state.cursor.unreachable_since_ms ?? now;
      const away = finishedAt - unreachableSince;
      if (away >= this.deps.maxPauseSeconds * 1000) {
        return this.finish(state, "failed", finishedAt, `no order reached the order API for ${Math.round(away / 1000)} s, although it answered its health check, so the run gave up: ${unreachable}`);
      }
      // A whole interval without one answer: wait for the target instead of flooding it with errors.
      state.cursor.unreachable_since_ms = unreachableSince;
      state.summary.paused = { since: new Date(finishedAt).toISOString(), reason: unreachable };
      state.summary.current_rate = 0;
      return { state, interval, nextTickMs: finishedAt + PAUSE_RETRY_MS };
    }
    return { state, interval, nextTickMs: now + TICK_MS };
  }
}
