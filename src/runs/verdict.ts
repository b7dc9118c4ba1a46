/**
 * What a run is judged by at the end, and what may stop it early: each
 * threshold on the run-wide figures, every drill order rejected for its
 * reason, and the planned load actually applied (no dropped order). A run
 * that did not finish its plan (stopped, interrupted, failed) has no verdict
 * on the load it never sent; an aborted one has failed.
 */
import type { RejectionReason } from "../orders/rejections";
import { METRICS, metricValue, type RunMeasures } from "./metrics";
import type { Comparison, Figures, RunPlan, RunStatus, Threshold, Verdict } from "./schemas";

const HOLDS: Record<Comparison, (measured: number, bound: number) => boolean> = {
  "<": (m, b) => m < b,
  "<=": (m, b) => m <= b,
  ">": (m, b) => m > b,
  ">=": (m, b) => m >= b,
};

export function describeThreshold(threshold: Threshold): string {
  return `${threshold.metric} ${threshold.op} ${threshold.value}`;
}

function measuredText(threshold: Threshold, measured: number): string {
  const unit = METRICS[threshold.metric].unit;
  return unit === "ms" ? `${measured} ms` : unit === "orders/s" ? `${measured} orders/s` : String(measured);
}

export interface ThresholdOutcome {
  readonly threshold: Threshold;
  readonly measured: number;
  readonly passed: boolean;
}

export function evaluateThresholds(thresholds: readonly Threshold[], measures: RunMeasures): ThresholdOutcome[] {
  return thresholds.map((threshold) => {
    const measured = metricValue(threshold.metric, measures);
    return { threshold, measured, passed: HOLDS[threshold.op](measured, threshold.value) };
  });
}

/** The first abort-on-fail threshold that fails once its grace is over, with the sentence that ends the run. */
export function abortingThreshold(plan: RunPlan, measures: RunMeasures, elapsedSeconds: number): string | null {
  if (measures.answered + measures.errors === 0) return null;
  const armed = plan.thresholds.filter((t) => t.abort_on_fail && elapsedSeconds >= t.grace_seconds);
  const failed = evaluateThresholds(armed, measures).find((outcome) => !outcome.passed);
  if (!failed) return null;
  return `aborted ${Math.round(elapsedSeconds)} s in: the threshold ${describeThreshold(failed.threshold)} failed (measured ${measuredText(failed.threshold, failed.measured)})`;
}

export function verdictOf(status: RunStatus, plan: RunPlan, figures: Figures, measures: RunMeasures): Verdict {
  const checks: Verdict["checks"] = [];
  const failed: string[] = [];
  for (const outcome of evaluateThresholds(plan.thresholds, measures)) {
    const check = describeThreshold(outcome.threshold);
    checks.push({ check, measured: outcome.measured, passed: outcome.passed });
    if (!outcome.passed) failed.push(`${check} failed: measured ${measuredText(outcome.threshold, outcome.measured)}`);
  }
  for (const [reason, tally] of Object.entries(figures.drill) as [
    RejectionReason,
    NonNullable<Figures["drill"][RejectionReason]>,
  ][]) {
    const passed = tally.mismatched === 0;
    checks.push({ check: `every ${reason} drill order rejected for ${reason}`, measured: tally.mismatched, passed });
    if (!passed)
      failed.push(
        `${tally.mismatched} of ${tally.sent} orders broken for ${reason} were not rejected for it (see findings)`,
      );
  }
  const delivered = figures.dropped === 0;
  checks.push({
    check: "every planned order left within max_lateness_ms (none dropped)",
    measured: figures.dropped,
    passed: delivered,
  });
  if (!delivered)
    failed.push(
      `${figures.dropped} orders could not leave on time and were dropped, so the planned load was not applied (see limits)`,
    );

  const decided = status === "completed" || status === "aborted";
  const result = !decided ? null : status === "aborted" || failed.length > 0 ? "failed" : "passed";
  return { result, checks, failed };
}
