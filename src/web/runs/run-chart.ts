import { CHART_POINTS, chartBucketSeconds, type RunInterval, type RunSummary } from "../../synth/run-schemas";

/**
 * The geometry of the run page's charts: pure numbers and SVG path data, no
 * markup, so the drawing is tested without a page. The page scales the SVG
 * to its width (viewBox), so one drawing serves a phone and a desktop.
 */

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
}

export interface Chart {
  readonly width: number;
  readonly height: number;
  /** The top of the y axis: a round number at or above the largest value. */
  readonly yMax: number;
  readonly xMax: number;
  /** y positions of the gridlines (bottom, middle, top). */
  readonly gridYs: readonly number[];
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

/**
 * At most `maxPoints` intervals: consecutive ones are merged, counts averaged
 * per interval (an interval is about a second), the median latency averaged
 * by orders sent, and the p95 the worst of the bucket, so a spike survives.
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
    buckets.push({
      at_second: round1(sum((i) => i.at_second) / n),
      sent: round1(sent / n),
      accepted: round1(sum((i) => i.accepted) / n),
      rejected: round1(sum((i) => i.rejected) / n),
      latency_p50_ms: sent === 0 ? 0 : round1(sum((i) => i.latency_p50_ms * i.sent) / sent),
      latency_p95_ms: Math.max(...bucket.map((i) => i.latency_p95_ms)),
    });
  }
  return buckets;
}

/** A line chart of the series over `xs` (seconds), from 0 to `xMax`; a step over `gapSeconds` breaks the line. */
export function lineChart(xs: readonly number[], series: readonly ChartSeries[], xMax: number, gapSeconds: number = GAP_POINTS): Chart {
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
    return { key: s.key, label: s.label, d: commands.join(" "), points };
  });
  return { width: CHART_WIDTH, height: CHART_HEIGHT, yMax, xMax: span, gridYs: [py(0), py(yMax / 2), py(yMax)], lines };
}

/**
 * The run's two charts: orders per interval, and the target's latency. The
 * points are the stored chart buckets of chartBucketSeconds(plannedSeconds)
 * each, merged further if a long pause left more than MAX_POINTS of them.
 */
export function runCharts(intervals: readonly RunInterval[], plannedSeconds: number): { counts: Chart; latency: Chart } {
  const points = bucketIntervals(intervals);
  const xs = points.map((i) => i.at_second);
  const pointSeconds = chartBucketSeconds(plannedSeconds) * Math.max(1, Math.ceil(intervals.length / MAX_POINTS));
  const gap = GAP_POINTS * pointSeconds;
  const counts = lineChart(
    xs,
    [
      { key: "sent", label: "Sent", values: points.map((i) => i.sent) },
      { key: "accepted", label: "Accepted", values: points.map((i) => i.accepted) },
      { key: "rejected", label: "Rejected", values: points.map((i) => i.rejected) },
    ],
    plannedSeconds,
    gap,
  );
  const latency = lineChart(
    xs,
    [
      { key: "p50", label: "p50", values: points.map((i) => i.latency_p50_ms) },
      { key: "p95", label: "p95", values: points.map((i) => i.latency_p95_ms) },
    ],
    plannedSeconds,
    gap,
  );
  return { counts, latency };
}

/** Orders answered per second over the whole run, for a run that has ended. */
export function averageRate(run: Pick<RunSummary, "started_at" | "finished_at" | "sent">): number {
  const seconds = (Date.parse(run.finished_at ?? run.started_at) - Date.parse(run.started_at)) / 1000;
  return seconds > 0 ? Math.round((run.sent / seconds) * 10) / 10 : 0;
}
