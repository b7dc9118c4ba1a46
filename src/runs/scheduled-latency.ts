/**
 * Latency from the scheduled instant over every scheduled order, sent or
 * not. A dropped order never got an answer, but it had waited as long as it
 * had when it was dropped: it is recorded at that wait, a censored
 * observation (a lower bound of its true latency). A percentile is only
 * known when fewer orders were censored than lie above it; otherwise the
 * figure is a lower bound, and says so.
 */
import { z } from "zod/v4";
import { type Histogram, LatencyFiguresSchema } from "./histogram";

export const LATENCY_FIELDS = ["p50_ms", "p90_ms", "p95_ms", "p99_ms", "p999_ms", "max_ms"] as const;
export type LatencyField = (typeof LATENCY_FIELDS)[number];

/** The share of orders above each field: a field is a lower bound once more than this share is censored. */
const SHARE_ABOVE: Record<LatencyField, number> = {
  p50_ms: 0.5,
  p90_ms: 0.1,
  p95_ms: 0.05,
  p99_ms: 0.01,
  p999_ms: 0.001,
  max_ms: 0,
};

export const ScheduledLatencySchema = LatencyFiguresSchema.extend({
  censored: z
    .number()
    .int()
    .describe(
      "Orders counted in these figures that never got an answer because they were dropped: each at how long it had waited when it was dropped, so its true latency is at least that",
    ),
  lower_bounds: z
    .array(z.enum(LATENCY_FIELDS))
    .describe(
      'The fields above that are lower bounds, not measurements: more orders were censored (dropped) than lie above that percentile, so the true value is at least the figure given. A threshold such as p99_ms < 2500 on one of them fails, since it cannot be shown to hold; p99_ms > 100 passes when the bound alone exceeds 100. Empty when every figure is measured, e.g. ["p99_ms", "p999_ms", "max_ms"] when 2 % of orders were dropped',
    ),
});
export type ScheduledLatency = z.infer<typeof ScheduledLatencySchema>;

export function scheduledLatency(histogram: Histogram, censored: number): ScheduledLatency {
  const figures = histogram.figures();
  const share = figures.count === 0 ? 0 : censored / figures.count;
  return {
    ...figures,
    censored,
    lower_bounds: censored === 0 ? [] : LATENCY_FIELDS.filter((field) => share > SHARE_ABOVE[field]),
  };
}
