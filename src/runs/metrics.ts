/**
 * The figures a run is judged by: the one list that thresholds, the verdict,
 * run comparisons and their descriptions all read. Latency is measured from
 * each order's scheduled send time (what a customer arriving at that moment
 * would have waited), service time from the moment it actually left.
 */
import { z } from "zod/v4";
import type { GeneratorHealth } from "./generator-health";
import type { LatencyFigures } from "./histogram";
import type { ScheduledLatency } from "./scheduled-latency";

export interface RunMeasures {
  /** Over every scheduled order, dropped ones censored: some fields may be lower bounds. */
  readonly latency: ScheduledLatency;
  /** Of the orders sent only. */
  readonly service: LatencyFigures;
  /** The service time of the answers the generator took on time: the target's own. */
  readonly service_unwaited: LatencyFigures;
  /** Whether answers waited on the generator's busy isolate (generator-health.ts answersWaited). */
  readonly waited: boolean;
  readonly lateness: LatencyFigures;
  readonly generator: GeneratorHealth;
  /** Orders answered, accepted, rejected (non-2xx), answered 5xx, failed without an answer, dropped. */
  readonly answered: number;
  readonly rejected: number;
  readonly server_errors: number;
  readonly errors: number;
  readonly dropped: number;
  readonly launched: number;
  /** Orders that left per second over the schedule's own window (figures.ts, measuresOf). */
  readonly achieved_rate: number;
}

type Better = "lower" | "higher";

interface MetricDefinition {
  readonly description: string;
  readonly better: Better;
  readonly unit: "ms" | "ratio" | "orders/s";
  read(measures: RunMeasures): number;
  /** Whether the value read is only a lower bound of the truth (a censored percentile). */
  atLeast?(measures: RunMeasures): boolean;
  /**
   * Whether a generator that limited the run can make this metric fail, so that a failure proves nothing about the
   * target.
   */
  readonly generatorSensitive: boolean;
}

const ratio = (part: number, whole: number) => (whole === 0 ? 0 : Math.round((part / whole) * 10_000) / 10_000);

const LATENCY_KEYS = [
  ["p50_ms", "median"],
  ["p90_ms", "90th percentile"],
  ["p95_ms", "95th percentile"],
  ["p99_ms", "99th percentile"],
  ["p999_ms", "99.9th percentile"],
  ["max_ms", "largest"],
] as const;
type LatencyKey = (typeof LATENCY_KEYS)[number][0];

function latencyMetrics<P extends string>(
  prefix: P,
  pick: (m: RunMeasures) => LatencyFigures & { lower_bounds?: readonly string[] },
  what: string,
): Record<`${P}${LatencyKey}`, MetricDefinition> {
  return Object.fromEntries(
    LATENCY_KEYS.map(([key, name]) => [
      `${prefix}${key}`,
      {
        description: `The ${name} ${what}, in ms`,
        better: "lower",
        unit: "ms",
        read: (m: RunMeasures) => pick(m)[key],
        atLeast: (m: RunMeasures) => pick(m).lower_bounds?.includes(key) ?? false,
        // The generator's event loop delays reading an answer too, so a starved generator inflates service time.
        generatorSensitive: true,
      } satisfies MetricDefinition,
    ]),
  ) as Record<`${P}${LatencyKey}`, MetricDefinition>;
}

export const METRICS = {
  ...latencyMetrics(
    "",
    (m) => m.latency,
    "latency from each order's scheduled send time to its answer, over every scheduled order (a dropped one counted at its wait so far, which can make the figure a lower bound)",
  ),
  ...latencyMetrics(
    "service_",
    (m) => m.service,
    "service time of the orders sent, from the moment each was handed to fetch to its answer",
  ),
  late_p99_ms: {
    description: "How late the 99th percentile order left after its scheduled time, in ms",
    better: "lower",
    unit: "ms",
    read: (m) => m.lateness.p99_ms,
    generatorSensitive: true,
  },
  error_rate: {
    description: "Share of orders the target failed: no answer (unreachable, timed out) or a 5xx answer",
    better: "lower",
    unit: "ratio",
    read: (m) => ratio(m.errors + m.server_errors, m.answered + m.errors),
    generatorSensitive: false,
  },
  rejected_rate: {
    description: "Share of answered orders that were not accepted (any non-2xx answer)",
    better: "lower",
    unit: "ratio",
    read: (m) => ratio(m.rejected, m.answered),
    generatorSensitive: false,
  },
  dropped_rate: {
    description: "Share of scheduled orders that could not leave within the allowed lateness and were not sent",
    better: "lower",
    unit: "ratio",
    read: (m) => ratio(m.dropped, m.launched + m.dropped),
    generatorSensitive: true,
  },
  achieved_rate: {
    description:
      "Orders that left for the target per second over the schedule's own window (first scheduled instant to last): the plan's rate times the share not dropped",
    better: "higher",
    unit: "orders/s",
    read: (m) => m.achieved_rate,
    generatorSensitive: true,
  },
} satisfies Record<string, MetricDefinition>;

export type MetricName = keyof typeof METRICS;
export const METRIC_NAMES = Object.keys(METRICS) as [MetricName, ...MetricName[]];

export const MetricNameSchema = z.enum(METRIC_NAMES, {
  error: (issue) => `unknown metric ${JSON.stringify(issue.input)}; use one of ${METRIC_NAMES.join(", ")}`,
});

export function metricValue(name: MetricName, measures: RunMeasures): number {
  return (METRICS[name] as MetricDefinition).read(measures);
}

export function metricBetter(name: MetricName): Better {
  return (METRICS[name] as MetricDefinition).better;
}

/** Whether the value `metricValue` reads is only a lower bound of the truth. */
export function metricAtLeast(name: MetricName, measures: RunMeasures): boolean {
  return (METRICS[name] as MetricDefinition).atLeast?.(measures) ?? false;
}

export function metricGeneratorSensitive(name: MetricName): boolean {
  return (METRICS[name] as MetricDefinition).generatorSensitive;
}
