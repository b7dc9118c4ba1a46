import { fail, ok, type Result } from "../core/errors";
import { judgedSteps, searchAnswer, stepResultOf } from "./capacity-answer";
import { type SearchRequest, stepRequest } from "./capacity-plan";
import type { CapacityPlan, CapacitySearch, SearchRecord, SearchStatus, StepPhase } from "./capacity-schemas";
import { nextMove } from "./capacity-search";
import type { SearchStore } from "./capacity-store";
import { TICK_MS } from "./coordinator";
import type { RunRequest } from "./plan";
import type { RunRecord } from "./record";
import type { RunSummary } from "./run-schemas";

export const SEARCH_NOT_FOUND = "capacity search not found; searches are only visible to the account that started them";

/** How a search runs its steps: as traffic runs of the account's RunCoordinator, holding its slot. */
export interface StepRunner {
  start(operator: string, request: RunRequest, searchId: string): Promise<Result<RunSummary>>;
  record(runId: string): Result<{ summary: RunSummary; record: RunRecord }>;
  stop(runId: string, operator: string): Promise<Result<RunSummary>>;
  /** The ids of the runs running now. */
  running(): string[];
}

interface CapacityCoordinatorDeps {
  readonly searches: SearchStore;
  readonly runner: StepRunner;
  /** Checks a request against the caps, choosing a seed when none was given. */
  readonly plan: (request: SearchRequest) => Result<CapacityPlan>;
  /** Sets the object's alarm for a search's next tick. */
  readonly scheduleTick: (at: Date, searchId: string) => Promise<void>;
  readonly searchUrl: (searchId: string) => string;
  readonly runUrl: (runId: string) => string;
  readonly newSearchId: () => string;
  readonly now: () => number;
}

/** The sentence that refuses a run or a search while a search holds the account's traffic. */
export function heldBySearch(searchId: string): string {
  return `capacity search ${searchId} is running and holds this account's traffic: its steps must be the only load on the target; stop it with stop_capacity_search or wait for it to finish`;
}

/**
 * The account's capacity searches. A search is a sequence of traffic runs
 * (its steps), one at a time, with a quiet pause between them; its tick, on
 * the object's alarm, waits for the current step's run to settle, folds its
 * figures into the search, and decides the next step (capacity-search.ts)
 * or the end. Every change of a search's status happens here.
 */
export class CapacityCoordinator {
  constructor(private readonly deps: CapacityCoordinatorDeps) {}

  async start(operator: string, request: SearchRequest): Promise<Result<CapacitySearch>> {
    const plan = this.deps.plan(request);
    if (!plan.ok) return plan;
    // No await between these checks and the insert: a run and a search cannot both pass them.
    const holder = this.deps.searches.running()[0];
    if (holder) return fail("conflict", heldBySearch(holder.search_id));
    const runs = this.deps.runner.running();
    if (runs.length > 0)
      return fail(
        "conflict",
        `run ${runs.join(", ")} is still running, and a capacity search needs the account's traffic to itself (a run beside its steps would load the target too and spoil every figure); stop it with stop_traffic_run or wait for it to finish`,
      );
    const now = this.deps.now();
    const record: SearchRecord = {
      search_id: this.deps.newSearchId(),
      status: "running",
      operator,
      started_at: new Date(now).toISOString(),
      finished_at: null,
      plan: plan.value,
      steps: [],
      pending: null,
      problem: null,
    };
    this.deps.searches.insert(record);
    await this.proceed(record, now);
    return this.get(record.search_id);
  }

  get(searchId: string): Result<CapacitySearch> {
    const record = this.deps.searches.get(searchId);
    if (!record) return fail("not_found", SEARCH_NOT_FOUND);
    const live = (runId: string) => {
      const run = this.deps.runner.record(runId);
      return run.ok ? stepResultOf(run.value.summary, run.value.record) : undefined;
    };
    return ok(
      searchAnswer(record, live, { search: this.deps.searchUrl(searchId), run: (runId) => this.deps.runUrl(runId) }),
    );
  }

  /** The searches running now, with the run of the step each is on: the synthetic budget counts them. */
  running(): { plan: CapacityPlan; run_id: string | null }[] {
    return this.deps.searches
      .running()
      .map((record) => ({ plan: record.plan, run_id: record.steps.at(-1)?.run_id ?? null }));
  }

  async stop(searchId: string, operator: string): Promise<Result<CapacitySearch>> {
    const record = this.deps.searches.get(searchId);
    if (!record) return fail("not_found", SEARCH_NOT_FOUND);
    if (record.status === "running") {
      await this.end(record, "stopped", `stopped by ${operator}`);
      const current = record.steps.at(-1);
      if (current && !current.result) await this.deps.runner.stop(current.run_id, operator);
    }
    return this.get(searchId);
  }

  /** One tick: fold a settled step in and decide, or start the step that is due. */
  async tick(searchId: string): Promise<void> {
    const record = this.deps.searches.get(searchId);
    if (record?.status !== "running") return;
    const now = this.deps.now();
    const current = record.steps.at(-1);
    if (current && !current.result) {
      const run = this.deps.runner.record(current.run_id);
      if (!run.ok)
        return this.end(record, "failed", `the run of step ${record.steps.length} (${current.run_id}) is gone`);
      const settled =
        run.value.record.status !== "running" && run.value.record.shards.every((shard) => shard.status !== "running");
      if (!settled) return this.deps.scheduleTick(new Date(now + TICK_MS), searchId);
      current.result = stepResultOf(run.value.summary, run.value.record);
      const ending = this.endingAfter(record, current.phase, current.rate_per_second, current.result);
      if (ending) return this.end(record, ending.status, ending.problem);
    }
    if (record.pending && record.pending.at_ms > now) {
      if (this.deps.searches.update(record, "running"))
        await this.deps.scheduleTick(new Date(record.pending.at_ms), searchId);
      return;
    }
    await this.proceed(record, now);
  }

  /** Starts the step that is due, or decides what comes next and pauses before it. */
  private async proceed(record: SearchRecord, now: number): Promise<void> {
    const { plan } = record;
    if (record.pending) {
      const { phase, rate_per_second: rate } = record.pending;
      const request = stepRequest(plan, phase, rate, record.steps.length);
      const started = await this.deps.runner.start(record.operator, request, record.search_id);
      if (!started.ok)
        return this.end(
          record,
          "failed",
          `step ${record.steps.length + 1} at ${rate} orders/s could not start: ${started.error.message}`,
        );
      const step = {
        phase,
        rate_per_second: rate,
        duration_seconds: request.duration_seconds ?? plan.step_seconds,
        run_id: started.value.run_id,
        result: null,
      };
      record.steps.push(step);
      record.pending = null;
      if (this.deps.searches.update(record, "running"))
        return this.deps.scheduleTick(new Date(now + TICK_MS), record.search_id);
      return this.stoppedWhileStarting(record.search_id, step);
    }
    const move = nextMove(plan, judgedSteps(record.steps.map((s) => ({ ...s, verdict: s.result?.verdict ?? null }))));
    if (move.kind === "done") return this.end(record, "completed", null);
    // The first step needs no pause: nothing of this search has loaded the target yet.
    const pause = record.steps.length === 0 ? 0 : plan.pause_seconds * 1000;
    record.pending = { phase: move.phase, rate_per_second: move.rate, at_ms: now + pause };
    if (pause === 0) return this.proceed(record, now);
    if (this.deps.searches.update(record, "running"))
      await this.deps.scheduleTick(new Date(now + pause), record.search_id);
  }

  /**
   * The search was stopped (or ended) while its step's run was starting: that run is stopped too, and kept in the
   * ended search's steps, so nothing the search started is left sending out of stop_capacity_search's reach.
   */
  private async stoppedWhileStarting(searchId: string, step: SearchRecord["steps"][number]): Promise<void> {
    const ended = this.deps.searches.get(searchId);
    await this.deps.runner.stop(step.run_id, ended?.problem?.replace(/^stopped by /, "") ?? "the search's end");
    if (ended && !ended.steps.some((s) => s.run_id === step.run_id))
      this.deps.searches.update({ ...ended, steps: [...ended.steps, step] }, ended.status);
  }

  /** A step that ended without a verdict on the target ends the search, saying why. */
  private endingAfter(
    record: SearchRecord,
    phase: StepPhase,
    rate: number,
    result: NonNullable<SearchRecord["steps"][number]["result"]>,
  ): { status: SearchStatus; problem: string } | null {
    const which = `step ${record.steps.length} (${phase}, ${rate} orders/s)`;
    if (result.status === "stopped")
      return { status: "stopped", problem: `${which} was stopped: ${result.problem ?? "its run was stopped"}` };
    if (result.status === "failed" || result.status === "interrupted")
      return { status: "failed", problem: `${which} ended ${result.status}: ${result.problem ?? "no reason given"}` };
    if (phase !== "warm-up" && result.verdict === "inconclusive")
      return {
        status: "inconclusive",
        // Why, as the step's run measured it; what to change is the answer's advice (capacity-answer.ts).
        problem: `at ${rate} orders/s ${result.inconclusive_reason ?? "the generator, not the target, was the limit"}`,
      };
    return null;
  }

  private async end(record: SearchRecord, status: SearchStatus, problem: string | null): Promise<void> {
    const ended: SearchRecord = {
      ...record,
      status,
      problem,
      pending: null,
      finished_at: new Date(this.deps.now()).toISOString(),
    };
    this.deps.searches.update(ended, "running");
  }
}
