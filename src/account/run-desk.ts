import { fail, ok, type Result } from "../core/errors";
import type { OrderApiTarget } from "../synth/order-api-target";
import type { RunPlan, RunRequest } from "../synth/run-plan";
import type { RunDetail, RunSummary } from "../synth/run-schemas";
import type { RunState, TrafficRunner } from "../synth/traffic-run";
import type { RunStore } from "./run-store";

const RUN_NOT_FOUND = "traffic run not found; runs are only visible to the account that started them (synthetic://runs lists yours)";

interface RunDeskDeps {
  readonly runs: RunStore;
  readonly runner: TrafficRunner;
  /** Runs at once per account (MAX_ACTIVE_RUNS). */
  readonly maxActive: number;
  readonly runUrl: (runId: string) => string;
  /** The ORDER_API target as seen by `actor`. */
  readonly target: (actor: string) => OrderApiTarget;
  /** Checks a request against the caps, choosing a seed when none was given. */
  readonly plan: (request: RunRequest) => Result<RunPlan>;
  /** Sets the object's alarm for a run's next tick. */
  readonly scheduleTick: (at: Date, runId: string) => Promise<void>;
  /** How many intervals a tool answer shows. */
  readonly recentIntervals: number;
  readonly now: () => Date;
}

/**
 * The account's traffic runs: start, watch, stop, and one tick at a time.
 * It lives in the account's object, whose alarm calls tick(); everything a
 * run needs to go on is in its stored state, so a fresh desk after a restart
 * picks it up where it was.
 */
export class RunDesk {
  /** Runs stopped while a tick may be sending; that tick sees the flag before its next send, then clears it. */
  private readonly stopping = new Set<string>();

  constructor(private readonly deps: RunDeskDeps) {}

  async start(operator: string, request: RunRequest): Promise<Result<RunSummary>> {
    const { runs, runner, maxActive } = this.deps;
    const plan = this.deps.plan(request);
    if (!plan.ok) return plan;
    // No await between the count and the insert: two starts cannot both pass the check.
    const active = runs.running();
    if (active.length >= maxActive) {
      const ids = active.map((run) => run.summary.run_id).join(", ");
      return fail(
        "conflict",
        `run ${ids} is still running and this account allows ${maxActive} at a time (MAX_ACTIVE_RUNS); stop it with stop_traffic_run or wait for it to finish`,
      );
    }
    const state = runner.newState(plan.value, operator);
    runs.insert(state);
    await this.deps.scheduleTick(this.deps.now(), state.summary.run_id);
    return ok(this.summaryOf(state));
  }

  /** A tool's view: the latest intervals. */
  get(runId: string): Result<RunDetail> {
    const state = this.deps.runs.get(runId);
    if (!state) return fail("not_found", RUN_NOT_FOUND);
    return ok({ ...this.summaryOf(state), intervals: this.deps.runs.intervals(runId, this.deps.recentIntervals) });
  }

  /** The run page's view: the chart's points instead of intervals, a bounded read however long the run. */
  chart(runId: string): Result<RunDetail> {
    const state = this.deps.runs.get(runId);
    if (!state) return fail("not_found", RUN_NOT_FOUND);
    return ok({ ...this.summaryOf(state), intervals: this.deps.runs.chart(runId) });
  }

  stop(runId: string, operator: string): Result<RunSummary> {
    const { runs, runner } = this.deps;
    const state = runs.get(runId);
    if (!state) return fail("not_found", RUN_NOT_FOUND);
    if (state.summary.status !== "running") return ok(this.summaryOf(state));
    const stopped: RunState = {
      ...state,
      summary: { ...state.summary, status: "stopped", finished_at: this.deps.now().toISOString(), paused: null, current_rate: 0, problem: `stopped by ${operator}` },
    };
    runs.update(stopped, "running");
    this.stopping.add(runId);
    runner.forget(runId);
    return ok(this.summaryOf(runs.get(runId) ?? stopped));
  }

  recent(): RunSummary[] {
    return this.deps.runs.recent().map((state) => this.summaryOf(state));
  }

  /** One tick; the next is scheduled only after this one is persisted. */
  async tick(runId: string): Promise<void> {
    const { runs, runner, target } = this.deps;
    const state = runs.get(runId);
    if (!state || state.summary.status !== "running") {
      this.stopping.delete(runId);
      return;
    }
    // Asked before every send: the flag is set by stop(); the status column (not the whole state) covers any other ending.
    const stopped = () => this.stopping.has(runId) || runs.status(runId) !== "running";
    const outcome = await runner.tick(state, target(`${state.summary.operator} via start_traffic_run`), stopped);
    const stored = runs.get(runId);
    if (!stored) return;
    if (outcome.interval) runs.addInterval(runId, outcome.interval, state.summary.plan.duration_seconds);
    if (stored.summary.status !== "running") {
      // Stopped while this tick was sending: keep the stop, count what the tick sent.
      const { status, finished_at, problem } = stored.summary;
      runs.update({ ...outcome.state, summary: { ...outcome.state.summary, status, finished_at, problem, paused: null, current_rate: 0 } }, status);
      this.stopping.delete(runId);
      return;
    }
    runs.update(outcome.state, "running");
    if (outcome.nextTickMs !== null) await this.deps.scheduleTick(new Date(outcome.nextTickMs), runId);
  }

  /** Drops what the desk holds in memory for a run that ended elsewhere (failed by the object). */
  forget(runId: string): void {
    this.stopping.delete(runId);
    this.deps.runner.forget(runId);
  }

  private summaryOf(state: RunState): RunSummary {
    return { ...state.summary, run_url: this.deps.runUrl(state.summary.run_id) };
  }
}
