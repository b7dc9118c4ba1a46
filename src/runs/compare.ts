/**
 * A run against a baseline run of the same account, metric by metric: how
 * far each moved, and whether it moved the wrong way by more than the
 * caller's tolerance. A change smaller than the metric's noise floor (1 ms,
 * 0.1 % of orders, half an order a second) is never a regression, so a
 * baseline near zero does not turn every jitter into an infinite increase.
 */
import { z } from "zod/v4";
import { METRIC_NAMES, METRICS, type MetricName, metricBetter, metricValue } from "./metrics";
import type { RunRecord } from "./record";
import { recordMeasures } from "./summary";

const NOISE_FLOOR: Record<(typeof METRICS)[MetricName]["unit"], number> = { ms: 1, ratio: 0.001, "orders/s": 0.5 };

export const ComparisonSchema = z.object({
  run_id: z.string(),
  baseline_run_id: z.string(),
  tolerance_percent: z.number(),
  result: z.enum(["regressed", "no regression"]),
  regressions: z.array(z.string()).describe("One sentence per metric that moved the wrong way beyond the tolerance"),
  notes: z.array(z.string()).describe("What makes the two runs hard to compare (different plans, a run still going)"),
  metrics: z.array(
    z.object({
      metric: z.string(),
      better: z.enum(["lower", "higher"]),
      baseline: z.number(),
      current: z.number(),
      change: z.number(),
      change_percent: z.number().nullable().describe("null when the baseline is 0"),
      regression: z.boolean(),
    }),
  ),
});
export type Comparison = z.infer<typeof ComparisonSchema>;

const round = (n: number, places = 2) => Math.round(n * 10 ** places) / 10 ** places;

function notesOn(current: RunRecord, baseline: RunRecord): string[] {
  const notes: string[] = [];
  const shape = (r: RunRecord) =>
    JSON.stringify({ start: r.plan.start_rate, stages: r.plan.stages, mode: r.plan.mode, share: r.plan.invalid_share });
  if (shape(current) !== shape(baseline))
    notes.push(
      "the two runs had different plans (rates, stages, mode or invalid_share), so their figures were measured under different load",
    );
  for (const [name, record] of [
    ["run", current],
    ["baseline", baseline],
  ] as const) {
    if (record.status !== "completed")
      notes.push(
        `the ${name} ${record.run_id} is ${record.status}, not completed: its figures cover only part of its plan`,
      );
  }
  return notes;
}

export function compareRuns(current: RunRecord, baseline: RunRecord, tolerancePercent: number): Comparison {
  const now = recordMeasures(current);
  const then = recordMeasures(baseline);
  const metrics = METRIC_NAMES.map((metric) => {
    const before = metricValue(metric, then);
    const after = metricValue(metric, now);
    const better = metricBetter(metric);
    const worse = better === "lower" ? after - before : before - after;
    const allowed = Math.max(NOISE_FLOOR[METRICS[metric].unit], (Math.abs(before) * tolerancePercent) / 100);
    return {
      metric,
      better,
      baseline: before,
      current: after,
      change: round(after - before, 4),
      change_percent: before === 0 ? null : round(((after - before) / Math.abs(before)) * 100, 1),
      regression: worse > allowed,
    };
  });
  const regressions = metrics
    .filter((m) => m.regression)
    .map(
      (m) =>
        `${m.metric} went from ${m.baseline} to ${m.current}${m.change_percent === null ? "" : ` (${m.change_percent > 0 ? "+" : ""}${m.change_percent} %)`}, worse than the ${tolerancePercent} % tolerance`,
    );
  return {
    run_id: current.run_id,
    baseline_run_id: baseline.run_id,
    tolerance_percent: tolerancePercent,
    result: regressions.length > 0 ? "regressed" : "no regression",
    regressions,
    notes: notesOn(current, baseline),
    metrics,
  };
}
