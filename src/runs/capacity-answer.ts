/**
 * A capacity search as get_capacity_search answers it: each step's figures
 * read off its run (the same summary get_traffic_run gives), the interval the
 * knee lies in, what broke first there, and one sentence an agent can repeat.
 */

import type { CapacitySearch, SearchOutcome, SearchRecord, SearchStep, StepResult } from "./capacity-schemas";
import { type Bracket, bracketOf, type JudgedStep } from "./capacity-search";
import { measuresOf } from "./figures";
import { METRICS, metricValue } from "./metrics";
import type { RunRecord } from "./record";
import type { RunSummary, Threshold } from "./run-schemas";

/** What the sentences call the configured target. */
const TARGET = "the order API";
const OP_WORDS = { "<": "under", "<=": "at most", ">": "over", ">=": "at least" } as const;

/** A step's figures as its run shows them now; the verdict is null until the run has ended. */
export function stepResultOf(summary: RunSummary, record: RunRecord): StepResult {
  const measures = measuresOf(record.figures, record.plan);
  const broke = summary.verdict.checks.filter((check) => !check.passed);
  return {
    status: summary.status,
    verdict: summary.verdict.result,
    achieved_rate: summary.achieved_rate,
    p50_ms: summary.latency.p50_ms,
    p99_ms: summary.latency.p99_ms,
    lower_bounds: summary.latency.lower_bounds.filter((field) => field === "p50_ms" || field === "p99_ms"),
    error_rate: metricValue("error_rate", measures),
    dropped_rate: metricValue("dropped_rate", measures),
    failed: summary.verdict.failed,
    broke: broke.map((check) => ({ check: check.check, measured: check.measured, at_least: check.at_least })),
    inconclusive_reason: summary.verdict.inconclusive_reason,
    problem: summary.problem,
  };
}

export function judgedSteps(
  steps: readonly { phase: SearchStep["phase"]; rate_per_second: number; verdict: SearchStep["verdict"] }[],
): JudgedStep[] {
  return steps
    .filter((step) => step.verdict === "passed" || step.verdict === "failed")
    .map((step) => ({ phase: step.phase, rate: step.rate_per_second, passed: step.verdict === "passed" }));
}

function valueWords(threshold: Threshold, value: number): string {
  const unit = METRICS[threshold.metric].unit;
  if (unit === "ms") return value >= 1000 ? `${Math.round(value / 100) / 10} s` : `${Math.round(value)} ms`;
  return unit === "orders/s" ? `${value} orders/s` : String(value);
}

const metricWords = (threshold: Threshold) => threshold.metric.replace(/_ms$/, "");

/** "p99 under 300 ms and error_rate under 0.01" */
export function objectiveWords(objective: readonly Threshold[]): string {
  return objective.map((t) => `${metricWords(t)} ${OP_WORDS[t.op]} ${valueWords(t, t.value)}`).join(" and ");
}

/** What broke at the failing step, in words: the first objective threshold that failed, else the dropped orders. */
function brokeWords(objective: readonly Threshold[], step: SearchStep, result: StepResult | undefined): string {
  for (const threshold of objective) {
    const check = result?.broke.find((b) => b.check === `${threshold.metric} ${threshold.op} ${threshold.value}`);
    if (check && check.measured !== null)
      return `${metricWords(threshold)} reached ${check.at_least ? "at least " : ""}${valueWords(threshold, check.measured)}`;
  }
  if (step.dropped_rate > 0)
    return `${Math.round(step.dropped_rate * 1000) / 10} % of orders could not leave in time and were dropped`;
  return step.failed[0] ?? "it failed the objective";
}

function sentence(
  record: SearchRecord,
  steps: readonly SearchStep[],
  results: ReadonlyMap<string, StepResult>,
  bracket: Bracket,
  outcome: SearchOutcome | null,
): string {
  const { plan } = record;
  const meets = objectiveWords(plan.objective);
  const failing = steps.find((s) => s.rate_per_second === bracket.fail && s.verdict === "failed");
  const above = failing
    ? `at ${bracket.fail} orders/s ${brokeWords(plan.objective, failing, results.get(failing.run_id))}`
    : "";
  const sofar =
    bracket.pass === null
      ? "no rate has met the objective yet"
      : `so far it holds ${bracket.pass} orders/s with ${meets}`;
  switch (record.status) {
    case "running": {
      const now = steps.at(-1);
      const doing =
        now && now.verdict === null && now.status === "running"
          ? `step ${steps.length} at ${now.rate_per_second} orders/s (${now.phase})`
          : "pausing between steps";
      return `Searching, ${doing}: ${sofar}${above ? `; ${above}` : ""}.`;
    }
    case "inconclusive":
      return `Inconclusive: at ${steps.at(-1)?.rate_per_second} orders/s the generator, not ${TARGET}, was the limit, so the search cannot tell whether ${TARGET} holds that rate; ${sofar}.`;
    case "stopped":
      return `Stopped before the end: ${sofar}${above ? `; ${above}` : ""}.`;
    case "failed":
      return `The search failed (${record.problem ?? "a step could not run"}); ${sofar}.`;
  }
  if (outcome === "below_lowest")
    return `${capital(TARGET)} does not hold even ${bracket.fail} orders/s, the lowest rate asked for, with ${meets}: ${above}.`;
  if (outcome === "above_cap")
    return `${capital(TARGET)} holds ${bracket.pass} orders/s with ${meets}, and that is the highest rate this search could try (highest_rate): its knee is above it, not found; raise highest_rate, within MAX_RUN_RATE, to find it.`;
  return `${capital(TARGET)} holds ${bracket.pass} orders/s with ${meets}; ${above}.`;
}

function outcomeOf(bracket: Bracket): SearchOutcome {
  if (bracket.pass === null) return "below_lowest";
  return bracket.fail === null ? "above_cap" : "found";
}

const capital = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/**
 * The answer. `live` gives the result of a step whose run has not yet been
 * folded into the record (the current one), read off its run now.
 */
export function searchAnswer(
  record: SearchRecord,
  live: (runId: string) => StepResult | undefined,
  urls: { search: string; run: (runId: string) => string },
): CapacitySearch {
  const results = new Map<string, StepResult>();
  const steps: SearchStep[] = [];
  for (const step of record.steps) {
    const result = step.result ?? live(step.run_id);
    if (result) results.set(step.run_id, result);
    steps.push({
      phase: step.phase,
      rate_per_second: step.rate_per_second,
      duration_seconds: step.duration_seconds,
      run_id: step.run_id,
      run_url: urls.run(step.run_id),
      status: result?.status ?? "running",
      // The warm-up is not judged, and a step is judged only once its run has ended.
      verdict: step.phase === "warm-up" || !step.result ? null : step.result.verdict,
      achieved_rate: result?.achieved_rate ?? 0,
      p50_ms: result?.p50_ms ?? 0,
      p99_ms: result?.p99_ms ?? 0,
      lower_bounds: result?.lower_bounds ?? [],
      error_rate: result?.error_rate ?? 0,
      dropped_rate: result?.dropped_rate ?? 0,
      failed: result?.failed ?? [],
      inconclusive_reason: result?.inconclusive_reason ?? null,
    });
  }
  const bracket = bracketOf(judgedSteps(steps));
  const outcome = record.status === "completed" ? outcomeOf(bracket) : null;
  const failing = steps.find((s) => s.rate_per_second === bracket.fail && s.verdict === "failed");
  const brokeFirst = failing ? (results.get(failing.run_id)?.broke[0]?.check ?? null) : null;
  return {
    search_id: record.search_id,
    status: record.status,
    operator: record.operator,
    started_at: record.started_at,
    finished_at: record.finished_at,
    plan: record.plan,
    answer: sentence(record, steps, results, bracket, outcome),
    outcome,
    highest_passing_rate: bracket.pass,
    lowest_failing_rate: bracket.fail,
    tolerance: record.plan.tolerance,
    broke_first: brokeFirst,
    steps,
    next_step: record.pending
      ? {
          phase: record.pending.phase,
          rate_per_second: record.pending.rate_per_second,
          at: new Date(record.pending.at_ms).toISOString(),
        }
      : null,
    problem: record.problem,
    search_url: urls.search,
  };
}
