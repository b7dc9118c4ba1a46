/**
 * What a run is judged by at the end, and what may stop it early: each
 * threshold on the run-wide figures, every drill order rejected for its
 * reason, and the planned load actually applied (no dropped order). A run
 * that did not finish its plan (stopped, interrupted, failed) has no verdict
 * on the load it never sent; an aborted one has failed. When the generator
 * itself was the limit and nothing failed that only the target explains,
 * the verdict is inconclusive: the figures describe the generator.
 *
 * verdictOf is a pure function of a plan and its figures, so anything that
 * runs a plan (a run, or one step of a capacity search) is judged the same way.
 */
import type { RejectionReason } from "../orders/rejections";
import { FAN_OUT_ADVICE, GENERATOR_ADVICE, type GeneratorHealth } from "./generator-health";
import {
  METRICS,
  type MetricName,
  metricAtLeast,
  metricGeneratorSensitive,
  metricValue,
  type RunMeasures,
} from "./metrics";
import type { Comparison, Figures, RunPlan, RunStatus, Threshold, Verdict } from "./run-schemas";

const HOLDS: Record<Comparison, (measured: number, bound: number) => boolean> = {
  "<": (m, b) => m < b,
  "<=": (m, b) => m <= b,
  ">": (m, b) => m > b,
  ">=": (m, b) => m >= b,
};

/**
 * A lower bound proves a "stays below" threshold nothing (the truth may be
 * higher still), and proves a "stays above" one only when it already meets it.
 */
function proven(op: Comparison, measured: number, bound: number, atLeast: boolean): boolean {
  if (!atLeast) return HOLDS[op](measured, bound);
  return (op === ">" || op === ">=") && HOLDS[op](measured, bound);
}

/**
 * The service-time twin of a latency metric (p99_ms -> service_p99_ms): what
 * the target took without the generator's lateness. A latency threshold that
 * its twin breaks too was broken by the target, however late the generator ran.
 */
function serviceTwin(metric: MetricName): MetricName | null {
  const twin = `service_${metric}`;
  return twin in METRICS ? (twin as MetricName) : null;
}

/**
 * Whether the target alone broke a threshold. When answers waited on the generator's busy isolate, its service times
 * hold that wait too, so the service time of the answers taken on time is what the twin is read from.
 */
function brokenByTarget(threshold: Threshold, measures: RunMeasures): boolean {
  if (!metricGeneratorSensitive(threshold.metric)) return true;
  const twin = serviceTwin(threshold.metric);
  if (twin === null) return false;
  const taken = measures.waited ? { ...measures, service: measures.service_unwaited } : measures;
  const value = metricValue(twin, taken);
  return !HOLDS[threshold.op](value, threshold.value);
}

export function describeThreshold(threshold: Threshold): string {
  return `${threshold.metric} ${threshold.op} ${threshold.value}`;
}

function measuredText(threshold: Threshold, measured: number, atLeast: boolean): string {
  const unit = METRICS[threshold.metric].unit;
  const value = unit === "ms" ? `${measured} ms` : unit === "orders/s" ? `${measured} orders/s` : String(measured);
  if (!atLeast) return value;
  return `at least ${value}, a lower bound: too many orders were dropped to know it, so the threshold cannot be shown to hold`;
}

export interface ThresholdOutcome {
  readonly threshold: Threshold;
  readonly measured: number;
  readonly atLeast: boolean;
  readonly passed: boolean;
}

export function evaluateThresholds(thresholds: readonly Threshold[], measures: RunMeasures): ThresholdOutcome[] {
  return thresholds.map((threshold) => {
    const measured = metricValue(threshold.metric, measures);
    const atLeast = metricAtLeast(threshold.metric, measures);
    return { threshold, measured, atLeast, passed: proven(threshold.op, measured, threshold.value, atLeast) };
  });
}

/**
 * The first abort-on-fail threshold that has certainly failed once its grace
 * is over, with the sentence that ends the run; a lower bound that does not
 * yet break the threshold is not a reason to stop.
 */
export function abortingThreshold(plan: RunPlan, measures: RunMeasures, elapsedSeconds: number): string | null {
  if (measures.answered + measures.errors === 0) return null;
  const armed = plan.thresholds.filter((t) => t.abort_on_fail && elapsedSeconds >= t.grace_seconds);
  const failed = evaluateThresholds(armed, measures).find(
    (outcome) => !HOLDS[outcome.threshold.op](outcome.measured, outcome.threshold.value),
  );
  if (!failed) return null;
  return `aborted ${Math.round(elapsedSeconds)} s in: the threshold ${describeThreshold(failed.threshold)} failed (measured ${measuredText(failed.threshold, failed.measured, false)})`;
}

/** Why a generator that limited the run makes its verdict inconclusive, and what to change. */
export function generatorSentence(generator: GeneratorHealth): string {
  const parts: string[] = [];
  const ownDrops = generator.dropped - generator.fan_out_dropped;
  if (ownDrops > 0) parts.push(`dropped ${ownDrops} orders while request slots were free`);
  if (generator.fan_out_dropped > 0)
    parts.push(
      `held back ${generator.fan_out_dropped} orders at its fan-out's limit: every connection of a shard was waiting on a target that answered within the service time the run was sized for (a Cloudflare invocation may have 6 waiting for headers)`,
    );
  const waited =
    generator.answers_waited > 0
      ? `took ${generator.answers_waited} answers late on its busy isolate (event-loop lag p99 ${generator.loop_lag_p99_ms} ms), so their service times hold that wait`
      : null;
  if (generator.delay_p99_ms > generator.bound_ms || (parts.length === 0 && waited === null))
    parts.push(
      `handed orders to fetch late by its own delay (p99 ${generator.delay_p99_ms} ms, over the ${generator.bound_ms} ms bound; the longest ${generator.delay_max_ms} ms)`,
    );
  if (waited !== null) parts.push(waited);
  const advice = generator.fan_out_dropped > 0 ? `${FAN_OUT_ADVICE}; or ${GENERATOR_ADVICE}` : GENERATOR_ADVICE;
  return `the generator, not the target, was the limit: it ${parts.join(" and ")}, so these figures describe the generator as much as the target. To measure the target, ${advice}`;
}

/** One check per drilled rejection reason: every order broken for it was rejected for it, else the target failed. */
function drillChecks(figures: Figures): Pick<Verdict, "checks" | "failed"> {
  const checks: Verdict["checks"] = [];
  const failed: string[] = [];
  for (const [reason, tally] of Object.entries(figures.drill) as [
    RejectionReason,
    NonNullable<Figures["drill"][RejectionReason]>,
  ][]) {
    const passed = tally.mismatched === 0;
    checks.push({
      check: `every ${reason} drill order rejected for ${reason}`,
      measured: tally.mismatched,
      at_least: false,
      passed,
    });
    if (passed) continue;
    failed.push(
      `${tally.mismatched} of ${tally.sent} orders broken for ${reason} were not rejected for it (see findings)`,
    );
  }
  return { checks, failed };
}

export function verdictOf(status: RunStatus, plan: RunPlan, figures: Figures, measures: RunMeasures): Verdict {
  const checks: Verdict["checks"] = [];
  const failed: string[] = [];
  /**
   * A failure only the target explains: a wrong answer, an error, a drop while
   * every slot was taken, a latency threshold its service time alone breaks.
   */
  let targetFailed = false;
  for (const outcome of evaluateThresholds(plan.thresholds, measures)) {
    const check = describeThreshold(outcome.threshold);
    checks.push({ check, measured: outcome.measured, at_least: outcome.atLeast, passed: outcome.passed });
    if (outcome.passed) continue;
    failed.push(`${check} failed: measured ${measuredText(outcome.threshold, outcome.measured, outcome.atLeast)}`);
    if (brokenByTarget(outcome.threshold, measures)) targetFailed = true;
  }
  const drill = drillChecks(figures);
  checks.push(...drill.checks);
  failed.push(...drill.failed);
  if (drill.failed.length > 0) targetFailed = true;
  const delivered = figures.dropped === 0;
  checks.push({
    check: "every planned order left within max_lateness_ms (none dropped)",
    measured: figures.dropped,
    at_least: false,
    passed: delivered,
  });
  if (!delivered) {
    const byTarget = figures.dropped - figures.dropped_generator;
    // While the generator itself was the limit, a drop with every slot taken may be its own wait too: not the target's.
    if (byTarget > 0 && !measures.generator.limited) targetFailed = true;
    failed.push(
      `${figures.dropped} orders could not leave on time and were dropped (${byTarget} held back ${measures.generator.limited ? "with every request slot taken while the generator was the limit" : "by the target with every request slot taken"}, ${figures.dropped_generator} by the generator itself${figures.dropped_fanout > 0 ? `, ${figures.dropped_fanout} of them by its fan-out` : ""}), so the planned load was not applied (see limits)`,
    );
  }

  const decided = status === "completed" || status === "aborted";
  const failing = status === "aborted" || failed.length > 0;
  const result = !decided
    ? null
    : !failing
      ? "passed"
      : measures.generator.limited && !targetFailed
        ? "inconclusive"
        : "failed";
  return {
    result,
    inconclusive_reason: result === "inconclusive" ? generatorSentence(measures.generator) : null,
    checks,
    failed,
  };
}
