/**
 * The geometry of the run page's charts: pure numbers and SVG path data, no
 * markup, so the drawing is tested without a page. The page scales the SVG
 * to its width (viewBox), so one drawing serves a phone and a desktop.
 */
import { CHART_POINTS, chartBucketSeconds, type RunInterval } from "../../runs/run-schemas";

export const CHART_WIDTH = 600;
export const CHART_HEIGHT = 180;
const PAD = 6;
/** More points than this are averaged into buckets: a 15-minute run stays a light page that refreshes every 2 s. */
export const MAX_POINTS = CHART_POINTS;
/**
 * A silence between points longer than this many points' worth of seconds (a
 * pause, a restart) breaks the line instead of bridging it. The x values are
 * seconds by the clock since the run started, so such a silence shows.
 */
const GAP_POINTS = 3;
/**
 * Labelled gridlines above 0 on the y axis: fifths of a top of 5 × 10^n, quarters otherwise, so each label is round.
 */
const yTicks = (yMax: number) => (Math.round(yMax / 10 ** Math.floor(Math.log10(yMax))) === 5 ? 5 : 4);

interface ChartSeries {
  readonly key: string;
  readonly label: string;
  /** One value per x. */
  readonly values: readonly number[];
}

interface ChartLine {
  readonly key: string;
  readonly label: string;
  /** SVG path data in viewBox units; empty when the series has no points. */
  readonly d: string;
  readonly points: number;
  /** The series' latest value, shown beside its name; null when it has none. */
  readonly last: number | null;
}

export interface Chart {
  readonly width: number;
  readonly height: number;
  /** The top of the y axis: a round number at or above the largest value. */
  readonly yMax: number;
  readonly xMax: number;
  /** Gridlines from the bottom up, each with the value it stands for. */
  readonly ticks: readonly { readonly y: number; readonly value: number }[];
  readonly lines: readonly ChartLine[];
}

/** The smallest of 1, 2, 5 × 10^n at or above `value` (1 for nothing). */
export function niceCeiling(value: number): number {
  if (!(value > 0)) return 1;
  const magnitude = 10 ** Math.floor(Math.log10(value));
  const step = [1, 2, 5, 10].find((s) => value <= s * magnitude + 1e-9) ?? 10;
  return step * magnitude;
}

const round1 = (n: number) => Math.round(n * 10) / 10;

const COUNTS = [
  "seconds",
  "planned_rate",
  "sent",
  "accepted",
  "rejected",
  "errors",
  "dropped",
  "dropped_generator",
] as const;
const TAILS = ["latency_p95_ms", "latency_p99_ms", "service_p99_ms", "generator_delay_ms"] as const;

/**
 * At most `maxPoints` intervals: consecutive ones are merged, counts averaged
 * per interval (an interval is about a second), the median latency averaged
 * by orders answered, and the tail percentiles the worst of the bucket, so a
 * spike survives.
 */
export function bucketIntervals(intervals: readonly RunInterval[], maxPoints: number = MAX_POINTS): RunInterval[] {
  if (intervals.length <= maxPoints) return [...intervals];
  const size = Math.ceil(intervals.length / maxPoints);
  const buckets: RunInterval[] = [];
  for (let start = 0; start < intervals.length; start += size) {
    const bucket = intervals.slice(start, start + size);
    const n = bucket.length;
    const sum = (pick: (i: RunInterval) => number) => bucket.reduce((total, i) => total + pick(i), 0);
    const sent = sum((i) => i.sent);
    // Averaged per interval, lengths too: a count over the average length is the bucket's rate.
    const counts = Object.fromEntries(COUNTS.map((key) => [key, sum((i) => i[key]) / n])) as Record<
      (typeof COUNTS)[number],
      number
    >;
    const tails = Object.fromEntries(TAILS.map((key) => [key, Math.max(...bucket.map((i) => i[key]))])) as Record<
      (typeof TAILS)[number],
      number
    >;
    buckets.push({
      at_second: round1(sum((i) => i.at_second) / n),
      ...counts,
      ...tails,
      in_flight: Math.max(...bucket.map((i) => i.in_flight)),
      latency_p50_ms: sent === 0 ? 0 : round1(sum((i) => i.latency_p50_ms * i.sent) / sent),
    });
  }
  return buckets;
}

/** A line chart of the series over `xs` (seconds), from 0 to `xMax`; a step over `gapSeconds` breaks the line. */
export function lineChart(
  xs: readonly number[],
  series: readonly ChartSeries[],
  xMax: number,
  gapSeconds: number = GAP_POINTS,
): Chart {
  const top = Math.max(0, ...series.flatMap((s) => s.values));
  const yMax = niceCeiling(top);
  const span = Math.max(xMax, ...xs, 1);
  const plotWidth = CHART_WIDTH - 2 * PAD;
  const plotHeight = CHART_HEIGHT - 2 * PAD;
  const px = (x: number) => round1(PAD + (x / span) * plotWidth);
  const py = (y: number) => round1(CHART_HEIGHT - PAD - (y / yMax) * plotHeight);
  const lines = series.map((s) => {
    const commands: string[] = [];
    let points = 0;
    xs.forEach((x, i) => {
      const value = s.values[i];
      if (value === undefined) return;
      const previous = xs[i - 1];
      const startsSegment = i === 0 || previous === undefined || x - previous > gapSeconds;
      commands.push(`${startsSegment ? "M" : "L"}${px(x)} ${py(value)}`);
      // A lone point still shows, as a dot: a zero-length stroke with round caps.
      const next = xs[i + 1];
      if (startsSegment && (next === undefined || next - x > gapSeconds)) commands.push("h0.01");
      points++;
    });
    return { key: s.key, label: s.label, d: commands.join(" "), points, last: s.values.at(-1) ?? null };
  });
  const count = yTicks(yMax);
  const ticks = Array.from({ length: count + 1 }, (_, i) => {
    const value = Math.round(((yMax * i) / count) * 1000) / 1000;
    return { y: py(value), value };
  });
  return { width: CHART_WIDTH, height: CHART_HEIGHT, yMax, xMax: span, ticks, lines };
}

/**
 * The run's two charts: the planned rate against what was answered, rejected
 * and dropped per second (each interval's counts over its real length, so a
 * 2-second interval does not read as twice the rate), with the generator's
 * own drops apart; and latency, the median and tail from each order's
 * scheduled time beside the service time's tail and the generator's own
 * delay. The points are the stored chart buckets of
 * chartBucketSeconds(plannedSeconds) each, merged further if a long pause
 * left more than MAX_POINTS of them.
 */
export function runCharts(intervals: readonly RunInterval[], plannedSeconds: number): { rates: Chart; latency: Chart } {
  const points = bucketIntervals(intervals);
  const xs = points.map((i) => i.at_second);
  const pointSeconds = chartBucketSeconds(plannedSeconds) * Math.max(1, Math.ceil(intervals.length / MAX_POINTS));
  const gap = GAP_POINTS * pointSeconds;
  const series = (key: string, label: string, pick: (i: RunInterval) => number): ChartSeries => ({
    key,
    label,
    values: points.map(pick),
  });
  const perSecond = (count: number, interval: RunInterval) =>
    round1(count / (interval.seconds > 0 ? interval.seconds : 1));
  const rates = lineChart(
    xs,
    [
      series("planned", "Planned", (i) => i.planned_rate),
      series("answered", "Answered", (i) => perSecond(i.sent, i)),
      series("rejected", "Rejected", (i) => perSecond(i.rejected, i)),
      series("dropped", "Dropped or failed", (i) => perSecond(i.dropped + i.errors, i)),
      series("generator", "Dropped by the generator", (i) => perSecond(i.dropped_generator, i)),
    ],
    plannedSeconds,
    gap,
  );
  const latency = lineChart(
    xs,
    [
      series("p50", "p50", (i) => i.latency_p50_ms),
      series("p99", "p99", (i) => i.latency_p99_ms),
      series("service-p99", "Service p99", (i) => i.service_p99_ms),
      series("generator-delay", "Generator delay p99", (i) => i.generator_delay_ms),
    ],
    plannedSeconds,
    gap,
  );
  return { rates, latency };
}
