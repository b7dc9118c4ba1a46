import { fail, ok, type Result } from "../core/errors";
import { type Comparison, compareRuns } from "./compare";
import { emptyFigures } from "./figures";
import type { Location } from "./locations";
import type { RunRequest } from "./plan";
import type { RunRecord } from "./record";
import type { RunDetail, RunInterval, RunPlan, RunStatus, RunSummary } from "./run-schemas";
import type { RunStore } from "./run-store";
import { type ShardProgress, type ShardSpec, shardLocation } from "./shard-state";
import { summaryOf } from "./summary";
import { endingAt, tickedRecord } from "./tick";

export const RUN_NOT_FOUND =
  "traffic run not found; runs are only visible to the account that started them (synthetic://runs lists yours)";

/** How often the coordinator reads its shards. */
export const TICK_MS = 1000;
/** A shard that has not answered for this long is taken for lost, and the run fails. */
export const SHARD_SILENCE_MS = 30_000;

/** One generator shard, as the coordinator reaches it (an RPC stub in the Worker, a fake in tests). */
export interface ShardHandle {
  start(spec: ShardSpec): Promise<void>;
  /** null when the shard knows no such run (its storage was lost). */
  progress(): Promise<ShardProgress | null>;
  stop(): Promise<void>;
  /** Drops the shard's storage once the coordinator holds its final figures. */
  forget(): Promise<void>;
}

interface RunCoordinatorDeps {
  readonly runs: RunStore;
  readonly account: string;
  /** `location`: the load zone the shard is created in, when the run names locations (a location hint). */
  readonly shard: (runId: string, index: number, location?: Location) => ShardHandle;
  /** Runs at once per account (MAX_ACTIVE_RUNS). */
  readonly maxActive: number;
  readonly runUrl: (runId: string) => string;
  /** Checks a request against the caps, choosing a seed when none was given. */
  readonly plan: (request: RunRequest) => Result<RunPlan>;
  /** Sets the object's alarm for a run's next tick. */
  readonly scheduleTick: (at: Date, runId: string) => Promise<void>;
  readonly recentIntervals: number;
  readonly newRunId: () => string;
  readonly now: () => number;
  /** The capacity search holding the account's traffic, if one does: its own steps may start, nothing else. */
  readonly heldBy?: () => { readonly searchId: string; readonly refusal: string } | null;
}

/**
 * The account's traffic runs: start, watch, stop, and the coordinator's tick.
 * The orders themselves are sent by the run's shards (each an object of its
 * own); once a second the tick reads them, adds their figures up, stores an
 * interval and decides, alone, whether the run goes on: every change of a
 * run's status happens here or in stop().
 */
export class RunCoordinator {
  constructor(private readonly deps: RunCoordinatorDeps) {}

  /** `searchId`: the capacity search this run is a step of, the one start a search's hold lets through. */
  async start(operator: string, request: RunRequest, searchId?: string): Promise<Result<RunSummary>> {
    const { runs, maxActive } = this.deps;
    const plan = this.deps.plan(request);
    if (!plan.ok) return plan;
    // No await between the checks and the insert: two starts cannot both pass them.
    const held = this.deps.heldBy?.();
    if (held && held.searchId !== searchId) return fail("conflict", held.refusal);
    const active = runs.running();
    if (active.length >= maxActive) {
      const ids = active.map((run) => run.run_id).join(", ");
      return fail(
        "conflict",
        `run ${ids} is still running and this account allows ${maxActive} at a time (MAX_ACTIVE_RUNS); stop it with stop_traffic_run or wait for it to finish`,
      );
    }
    const now = this.deps.now();
    const record: RunRecord = {
      run_id: this.deps.newRunId(),
      status: "running",
      operator,
      started_at: new Date(now).toISOString(),
      finished_at: null,
      plan: plan.value,
      problem: null,
      paused: null,
      figures: emptyFigures(),
      shards: Array.from({ length: plan.value.shards }, () => ({
        status: "running" as const,
        problem: null,
        dropped: 0,
        max_in_flight: 0,
      })),
      in_flight: 0,
      current_rate: 0,
      locations: [],
      last_tick_ms: now,
      missed_ticks: 0,
    };
    runs.insert(record);
    const actor = `${operator} via ${searchId ? `start_capacity_search (${searchId})` : "start_traffic_run"}`;
    const started = await Promise.allSettled(
      record.shards.map((_, shard) =>
        this.handle(record, shard).start({
          run_id: record.run_id,
          account: this.deps.account,
          actor,
          shard,
          shards: record.shards.length,
          plan: plan.value,
          starts_at_ms: now,
        }),
      ),
    );
    const refused = started.findIndex((outcome) => outcome.status === "rejected");
    if (refused >= 0) {
      await this.end(
        record,
        "failed",
        `generator shard ${refused + 1} of ${record.shards.length} could not be started, so the run was not begun; try again`,
      );
      return ok(this.summaryOf(this.deps.runs.get(record.run_id) ?? record));
    }
    await this.deps.scheduleTick(new Date(now + TICK_MS), record.run_id);
    return ok(this.summaryOf(record));
  }

  get(runId: string): Result<RunDetail> {
    const record = this.deps.runs.get(runId);
    if (!record) return fail("not_found", RUN_NOT_FOUND);
    return ok({ ...this.summaryOf(record), intervals: this.deps.runs.intervals(runId, this.deps.recentIntervals) });
  }

  /** The run page's view: the chart's points instead of intervals, a bounded read however long the run. */
  chart(runId: string): Result<RunDetail> {
    const record = this.deps.runs.get(runId);
    if (!record) return fail("not_found", RUN_NOT_FOUND);
    return ok({ ...this.summaryOf(record), intervals: this.deps.runs.chart(runId) });
  }

  /** The stored record itself, histograms included: for the export and the resource. */
  record(runId: string): Result<{ summary: RunSummary; record: RunRecord }> {
    const record = this.deps.runs.get(runId);
    if (!record) return fail("not_found", RUN_NOT_FOUND);
    return ok({ summary: this.summaryOf(record), record });
  }

  intervals(runId: string): Result<Iterable<RunInterval>> {
    if (!this.deps.runs.status(runId)) return fail("not_found", RUN_NOT_FOUND);
    return ok(this.deps.runs.allIntervals(runId));
  }

  async stop(runId: string, operator: string): Promise<Result<RunSummary>> {
    const record = this.deps.runs.get(runId);
    if (!record) return fail("not_found", RUN_NOT_FOUND);
    if (record.status !== "running") return ok(this.summaryOf(record));
    await this.end(record, "stopped", `stopped by ${operator}`);
    return ok(this.summaryOf(this.deps.runs.get(runId) ?? record));
  }

  compare(runId: string, baselineId: string, tolerancePercent: number): Result<Comparison> {
    if (runId === baselineId)
      return fail("bad_request", "baseline_run_id names the same run as run_id; compare a run with an earlier one");
    const current = this.deps.runs.get(runId);
    const baseline = this.deps.runs.get(baselineId);
    if (!current || !baseline) return fail("not_found", RUN_NOT_FOUND);
    return ok(compareRuns(current, baseline, tolerancePercent));
  }

  recent(): RunSummary[] {
    return this.deps.runs.recent().map((record) => this.summaryOf(record));
  }

  /**
   * One tick: read every shard, add their figures up, store the interval,
   * then decide. A run that has ended is still read until its shards have
   * settled, so the answers to orders in flight at a stop are counted.
   */
  async tick(runId: string): Promise<void> {
    const record = this.deps.runs.get(runId);
    if (!record || (record.status !== "running" && record.shards.every((shard) => shard.status !== "running"))) return;
    const now = this.deps.now();
    const read = await Promise.allSettled(record.shards.map((_, shard) => this.handle(record, shard).progress()));
    const lost = read.findIndex((outcome) => outcome.status === "rejected" || outcome.value === null);
    if (lost >= 0) {
      await this.missedTick(record, lost, now);
      return;
    }
    const parts = read.map((outcome) => (outcome as PromiseFulfilledResult<ShardProgress>).value);
    const { next, interval } = tickedRecord(record, parts, now);
    if (interval) this.deps.runs.addInterval(record.run_id, interval, record.plan.duration_seconds);
    const settled = next.shards.every((shard) => shard.status !== "running");
    if (record.status !== "running") {
      // Ended by a stop or an abort: only the figures still move.
      this.deps.runs.update(
        {
          ...next,
          status: record.status,
          finished_at: record.finished_at,
          problem: record.problem,
          paused: null,
          in_flight: 0,
          current_rate: 0,
        },
        record.status,
      );
      await this.afterEnd(record, settled, now);
      return;
    }
    const ending = endingAt(next, now);
    if (ending) {
      await this.end(next, ending.status, ending.problem);
      await this.afterEnd(record, settled, now);
      return;
    }
    if (this.deps.runs.update(next, "running")) await this.deps.scheduleTick(new Date(now + TICK_MS), runId);
  }

  /** An ended run is read again until its shards settle; then their storage is let go. */
  private async afterEnd(record: RunRecord, settled: boolean, now: number): Promise<void> {
    if (!settled) {
      await this.deps.scheduleTick(new Date(now + TICK_MS), record.run_id);
      return;
    }
    await Promise.allSettled(record.shards.map((_, index) => this.handle(record, index).forget()));
  }

  private async missedTick(record: RunRecord, lost: number, now: number): Promise<void> {
    const missed = record.missed_ticks + 1;
    if (record.status === "running" && missed * TICK_MS >= SHARD_SILENCE_MS) {
      const problem = `generator shard ${lost + 1} of ${record.shards.length} stopped answering for ${Math.round(SHARD_SILENCE_MS / 1000)} s, so the run was ended; ${record.figures.answered} of ${record.plan.total_orders} orders had been answered`;
      await this.end(
        {
          ...record,
          shards: record.shards.map((shard, i) => (i === lost ? { ...shard, status: "failed", problem } : shard)),
        },
        "failed",
        problem,
      );
      return;
    }
    if (record.status !== "running" && missed * TICK_MS >= SHARD_SILENCE_MS) {
      this.deps.runs.update(
        {
          ...record,
          shards: record.shards.map((shard) => ({
            ...shard,
            status: shard.status === "running" ? "stopped" : shard.status,
          })),
        },
        record.status,
      );
      return;
    }
    this.deps.runs.update({ ...record, missed_ticks: missed }, record.status);
    await this.deps.scheduleTick(new Date(now + TICK_MS), record.run_id);
  }

  /** Ends a running run: the status is written first, then the shards are told to stop sending. */
  private async end(record: RunRecord, status: RunStatus, problem: string | null): Promise<void> {
    const ended: RunRecord = {
      ...record,
      status,
      problem,
      finished_at: new Date(this.deps.now()).toISOString(),
      paused: null,
      in_flight: 0,
      current_rate: 0,
    };
    if (!this.deps.runs.update(ended, "running")) return;
    await Promise.allSettled(
      record.shards.map((shard, index) =>
        shard.status === "running" ? this.handle(record, index).stop() : Promise.resolve(),
      ),
    );
  }

  private handle(record: RunRecord, index: number): ShardHandle {
    return this.deps.shard(record.run_id, index, shardLocation(record.plan, index));
  }

  private summaryOf(record: RunRecord): RunSummary {
    return summaryOf(record, this.deps.runUrl(record.run_id), this.deps.now());
  }
}
