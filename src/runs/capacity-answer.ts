/**
 * A capacity search as get_capacity_search answers it: each step's figures
 * read off its run (the same summary get_traffic_run gives), the interval the
 * knee lies in, what broke first there, and one sentence an agent can repeat.
 * The sentence, the advice and what the search page shows (searchReading)
 * are all read off the one answer, so none can say what another denies.
 */

import { MIN_STEP_ORDERS, minimumStepSeconds } from "./capacity-plan";
import type { CapacitySearch, SearchOutcome, SearchRecord, SearchStep, StepResult } from "./capacity-schemas";
import { type Bracket, bracketOf, type JudgedStep, roundRate } from "./capacity-search";
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
function brokeWords(objective: readonly Threshold[], step: SearchStep): string {
  for (const threshold of objective) {
    const check = step.broke.find((b) => b.check === `${threshold.metric} ${threshold.op} ${threshold.value}`);
    if (check && check.measured !== null)
      return `${metricWords(threshold)} reached ${check.at_least ? "at least " : ""}${valueWords(threshold, check.measured)}`;
  }
  if (step.dropped_rate > 0)
    return `${Math.round(step.dropped_rate * 1000) / 10} % of orders could not leave in time and were dropped`;
  return step.failed[0] ?? "it failed the objective";
}

/** A search's answer before its sentences: every figure they are made of. */
export type SearchFigures = Omit<CapacitySearch, "answer" | "advice">;

/**
 * Everything a search's answer says, read off one record: the tool's
 * sentence and advice, and the page's headline, tiles and the knee band of
 * its chart. Built in one place, they cannot disagree.
 */
export interface SearchReading {
  /** get_capacity_search's `answer`, the page's headline. */
  readonly sentence: string;
  /** What to change to learn more, naming the setting or the call argument and a value; null when nothing is. */
  readonly advice: string | null;
  /** The tiles: "Holds" only once the search vouches for the rate, "Met" before that. */
  readonly tiles: {
    readonly holdsLabel: string;
    readonly holds: string;
    readonly fails: string;
    readonly brokeFirst: string;
  };
  /** The knee's band in orders a second (to: null runs off the right edge), or none when no knee is bracketed. */
  readonly knee: { readonly from: number; readonly to: number | null } | null;
  /** The chart legend's words for the knee. */
  readonly kneeWords: string;
}

/** What every reading of a search is built from, worked out once. */
interface ReadingBasis {
  readonly search: SearchFigures;
  readonly pass: number | null;
  readonly fail: number | null;
  /** The objective in words, e.g. "p99 under 500 ms". */
  readonly meets: string;
  /** What broke at the lowest failing rate, in words, or null before any step failed. */
  readonly above: string | null;
  readonly brokeFirst: string | null;
  /** The band between the highest passing and the lowest failing rate, once both are known. */
  readonly between: Pick<SearchReading, "knee" | "kneeWords">;
  /** "<pass> orders/s met <objective>", or null before any rate met it. */
  readonly met: string | null;
  /** The sentence's end: what broke, then a full stop. */
  readonly tail: string;
}

const perSecond = (rate: number | null, none: string) => (rate === null ? none : `${rate}/s`);

function readingBasis(search: SearchFigures): ReadingBasis {
  const { plan, steps } = search;
  const pass = search.highest_passing_rate;
  const fail = search.lowest_failing_rate;
  const meets = objectiveWords(plan.objective);
  const failing = steps.find((s) => s.rate_per_second === fail && s.verdict === "failed");
  const above = failing ? `at ${fail} orders/s ${brokeWords(plan.objective, failing)}` : null;
  const brokeFirst = search.broke_first ?? (failing && failing.dropped_rate > 0 ? "dropped orders" : null);
  const bracketed = pass !== null && fail !== null;
  return {
    search,
    pass,
    fail,
    meets,
    above,
    brokeFirst,
    between: {
      knee: bracketed ? { from: pass, to: fail } : null,
      kneeWords: bracketed ? `between ${pass}/s and ${fail}/s so far` : "not found",
    },
    met: pass === null ? null : `${pass} orders/s met ${meets}`,
    tail: `${above ? `; ${above}` : ""}.`,
  };
}

function foundReading({ pass, fail, meets, above, brokeFirst }: ReadingBasis): SearchReading {
  return {
    sentence: `${capital(TARGET)} holds ${pass} orders/s with ${meets}; ${above}.`,
    advice: null,
    tiles: {
      holdsLabel: "Holds",
      holds: perSecond(pass, "none"),
      fails: perSecond(fail, "none"),
      brokeFirst: brokeFirst ?? "—",
    },
    knee: { from: pass ?? 0, to: fail },
    kneeWords: `holds ${pass}/s, fails at ${fail}/s`,
  };
}

function aboveCapReading({ search, pass, meets }: ReadingBasis): SearchReading {
  const { plan } = search;
  const higher = roundRate((pass ?? plan.highest_rate) * 2);
  return {
    sentence: `${capital(TARGET)} holds ${pass} orders/s with ${meets}, the highest rate this search could try (highest_rate ${plan.highest_rate}): its knee is above that and was not found.`,
    advice: `To find the knee, ask start_capacity_search again with lowest_rate ${pass} and highest_rate ${higher}; a rate over the server's MAX_RUN_RATE is refused (on npm run dev, \`npm run dev -- --var MAX_RUN_RATE:${higher}\` raises it).`,
    tiles: {
      holdsLabel: "Holds",
      holds: perSecond(pass, "none"),
      fails: `none up to ${pass}/s`,
      brokeFirst: `nothing up to ${pass}/s`,
    },
    knee: { from: pass ?? plan.highest_rate, to: null },
    kneeWords: `above ${pass}/s, the highest rate asked for`,
  };
}

function belowLowestReading({ search, fail, meets, above, brokeFirst }: ReadingBasis): SearchReading {
  const lower = roundRate((fail ?? search.plan.lowest_rate) / 4);
  return {
    sentence: `${capital(TARGET)} does not hold even ${fail} orders/s, the lowest rate asked for, with ${meets}: ${above}.`,
    advice: `To find the knee, ask start_capacity_search again with lowest_rate ${lower} and highest_rate ${fail}, and step_seconds of at least ${minimumStepSeconds(lower)} (a step must send ${MIN_STEP_ORDERS} orders).`,
    tiles: { holdsLabel: "Holds", holds: "none", fails: perSecond(fail, "none"), brokeFirst: brokeFirst ?? "—" },
    knee: { from: 0, to: fail },
    kneeWords: `below ${fail}/s, the lowest rate asked for`,
  };
}

function runningReading({ search, pass, fail, brokeFirst, between, met, tail }: ReadingBasis): SearchReading {
  const { steps } = search;
  const now = steps.at(-1);
  const doing =
    now && now.verdict === null && now.status === "running"
      ? `step ${steps.length} at ${now.rate_per_second} orders/s (${now.phase})`
      : "pausing between steps";
  return {
    sentence: `Searching, ${doing}: ${met ? `so far ${met}` : "no rate has met the objective yet"}${tail}`,
    advice: null,
    tiles: {
      holdsLabel: "Met so far",
      holds: perSecond(pass, "none yet"),
      fails: perSecond(fail, "none yet"),
      brokeFirst: brokeFirst ?? "nothing yet",
    },
    ...between,
  };
}

/** The band's words once the search has ended: what it bracketed, no longer "so far". */
const endedKneeWords = (between: ReadingBasis["between"], none: string) =>
  between.knee ? between.kneeWords.replace(" so far", "") : none;

function inconclusiveReading({ search, pass, fail, meets, brokeFirst, between, tail }: ReadingBasis): SearchReading {
  const { plan, steps } = search;
  const unjudged = steps.findLast((s) => s.verdict === "inconclusive") ?? steps.at(-1);
  const rate = unjudged?.rate_per_second ?? plan.lowest_rate;
  const judged =
    pass === null ? " and judged no rate" : `; the highest rate it could judge, ${pass} orders/s, met ${meets}`;
  return {
    sentence: `Inconclusive: at ${rate} orders/s the generator, not ${TARGET}, was the limit, so the search found no knee${judged}${tail}`,
    advice: generatorAdvice(rate, pass, plan.lowest_rate),
    tiles: {
      holdsLabel: "Met",
      holds: perSecond(pass, "none"),
      fails: perSecond(fail, "not judged"),
      brokeFirst: brokeFirst ?? `not judged at ${rate}/s`,
    },
    knee: between.knee,
    kneeWords: endedKneeWords(between, `not found: ${rate}/s could not be judged`),
  };
}

function cutShortReading({ search, pass, fail, brokeFirst, between, met, tail }: ReadingBasis): SearchReading {
  const { status } = search;
  const why =
    status === "stopped" ? "Stopped before the end" : `The search failed (${search.problem ?? "a step could not run"})`;
  return {
    sentence: `${why}, so no knee was found${met ? `: ${met}` : ""}${tail}`,
    advice:
      status === "failed"
        ? "Start the search again once the problem is fixed; the steps above keep their figures."
        : null,
    tiles: {
      holdsLabel: "Met",
      holds: perSecond(pass, "none"),
      fails: perSecond(fail, "none before the end"),
      brokeFirst: brokeFirst ?? "nothing before the end",
    },
    knee: between.knee,
    kneeWords: endedKneeWords(between, "not found"),
  };
}

export function searchReading(search: SearchFigures): SearchReading {
  const basis = readingBasis(search);
  const { status, outcome } = search;
  if (status === "completed" && outcome === "found") return foundReading(basis);
  if (status === "completed" && outcome === "above_cap") return aboveCapReading(basis);
  if (status === "completed" && outcome === "below_lowest") return belowLowestReading(basis);
  if (status === "running") return runningReading(basis);
  if (status === "inconclusive") return inconclusiveReading(basis);
  return cutShortReading(basis);
}

/**
 * What to change when the generator, not the target, was the limit at
 * `rate`: a lower RUN_SHARD_RATE fans each step out over more generator
 * objects, and a highest_rate below the step keeps the search to rates the
 * generator can send.
 */
function generatorAdvice(rate: number, pass: number | null, lowest: number): string {
  const shardRate = Math.max(1, Math.ceil(rate / 2));
  const call =
    pass === null
      ? `a lowest_rate below ${rate}, e.g. lowest_rate ${roundRate(Math.max(1, lowest / 2))}`
      : `highest_rate ${pass}, the highest rate it could judge`;
  return `To judge ${rate} orders/s, spread it over more generator objects: set RUN_SHARD_RATE to ${shardRate} (on npm run dev: \`npm run dev -- --var RUN_SHARD_RATE:${shardRate}\`; deployed: RUN_SHARD_RATE under [vars] in wrangler.toml), or run on a quieter machine. Or ask start_capacity_search again with ${call}.`;
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
  const steps: SearchStep[] = [];
  for (const step of record.steps) {
    const result = step.result ?? live(step.run_id);
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
      broke: result?.broke ?? [],
      inconclusive_reason: result?.inconclusive_reason ?? null,
    });
  }
  const bracket = bracketOf(judgedSteps(steps));
  const outcome = record.status === "completed" ? outcomeOf(bracket) : null;
  const failing = steps.find((s) => s.rate_per_second === bracket.fail && s.verdict === "failed");
  const figures: SearchFigures = {
    search_id: record.search_id,
    status: record.status,
    operator: record.operator,
    started_at: record.started_at,
    finished_at: record.finished_at,
    plan: record.plan,
    outcome,
    highest_passing_rate: bracket.pass,
    lowest_failing_rate: bracket.fail,
    tolerance: record.plan.tolerance,
    broke_first: failing?.broke[0]?.check ?? null,
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
  const reading = searchReading(figures);
  return { ...figures, answer: reading.sentence, advice: reading.advice };
}
