import { describe, expect, it } from "vitest";
import type { RunInterval } from "../../../src/runs/run-schemas";
import {
  bucketIntervals,
  CHART_HEIGHT,
  CHART_WIDTH,
  lineChart,
  MAX_POINTS,
  niceCeiling,
  runCharts,
} from "../../../src/web/runs/run-chart";

function interval(at: number, sent: number, p50 = 10, p95 = 20, seconds = 1): RunInterval {
  return {
    at_second: at,
    seconds,
    planned_rate: sent,
    sent,
    accepted: sent - 1,
    rejected: 1,
    errors: 0,
    dropped: 0,
    dropped_generator: 0,
    generator_delay_ms: 3,
    in_flight: 2,
    latency_p50_ms: p50,
    latency_p95_ms: p95,
    latency_p99_ms: p95 + 5,
    service_p99_ms: p95 - 5,
  };
}

/** The points of a path as [x, y] pairs, ignoring the dot marker. */
function pointsOf(d: string): number[][] {
  return [...d.matchAll(/[ML]([\d.]+) ([\d.]+)/g)].map((m) => [Number(m[1]), Number(m[2])]);
}

describe("niceCeiling", () => {
  it.each([
    [0, 1],
    [0.3, 0.5],
    [1, 1],
    [4, 5],
    [5, 5],
    [12.3, 20],
    [51, 100],
    [740, 1000],
  ])("%d → %d", (value, nice) => {
    expect(niceCeiling(value)).toBeCloseTo(nice, 9);
  });
});

describe("lineChart", () => {
  it("one point per x, left to right, bottom at 0 and top at the nice maximum", () => {
    const chart = lineChart([0, 1, 2, 3], [{ key: "sent", label: "Sent", values: [0, 2, 4, 3] }], 3);
    expect(chart.yMax).toBe(5);
    const [line] = chart.lines;
    expect(line?.points).toBe(4);
    const points = pointsOf(line?.d ?? "");
    expect(points.map(([x]) => x)).toEqual([6, 202, 398, 594]);
    expect(points[0]?.[1]).toBe(CHART_HEIGHT - 6);
    // 4 of 5 is 80% of the plot's height above the bottom.
    expect(points[2]?.[1]).toBeCloseTo(CHART_HEIGHT - 6 - 0.8 * (CHART_HEIGHT - 12), 1);
    expect(line?.d.startsWith("M")).toBe(true);
    expect(line?.d.match(/L/g)).toHaveLength(3);
    expect(chart.width).toBe(CHART_WIDTH);
  });

  it("the x axis spans the planned duration, so a young run fills only its share", () => {
    const chart = lineChart([0, 1], [{ key: "sent", label: "Sent", values: [1, 1] }], 100);
    expect(chart.xMax).toBe(100);
    expect(Math.max(...pointsOf(chart.lines[0]?.d ?? "").map(([x]) => x ?? 0))).toBeLessThan(20);
  });

  it("a silence longer than the gap breaks the line; a lone point is drawn as a dot", () => {
    const chart = lineChart([0, 1, 2, 10], [{ key: "sent", label: "Sent", values: [1, 1, 1, 1] }], 10);
    const d = chart.lines[0]?.d ?? "";
    expect(d.match(/M/g)).toHaveLength(2);
    expect(d.endsWith("h0.01")).toBe(true);
  });

  it("no intervals: empty paths, still a chart", () => {
    const chart = lineChart([], [{ key: "sent", label: "Sent", values: [] }], 5);
    expect(chart.lines[0]).toEqual({ key: "sent", label: "Sent", d: "", points: 0, last: null });
    expect(chart.yMax).toBe(1);
    expect(chart.ticks).toHaveLength(5);
  });
});

describe("bucketIntervals", () => {
  it("keeps short runs as they are", () => {
    const intervals = [interval(0, 4), interval(1, 5)];
    expect(bucketIntervals(intervals)).toEqual(intervals);
  });

  it("merges long runs into at most MAX_POINTS buckets, keeping the worst of each tail percentile", () => {
    const intervals = Array.from({ length: 900 }, (_, i) => interval(i, 10, 10, i === 450 ? 999 : 20));
    const buckets = bucketIntervals(intervals);
    expect(buckets.length).toBeLessThanOrEqual(MAX_POINTS);
    expect(
      buckets.every((b) => b.sent === 10 && b.accepted === 9 && b.latency_p50_ms === 10 && b.planned_rate === 10),
    ).toBe(true);
    expect(Math.max(...buckets.map((b) => b.latency_p95_ms))).toBe(999);
    expect(Math.max(...buckets.map((b) => b.latency_p99_ms))).toBe(1004);
    expect(Math.max(...buckets.map((b) => b.service_p99_ms))).toBe(994);
  });

  it("weights the median by orders sent", () => {
    const [bucket] = bucketIntervals([interval(0, 3, 10), interval(1, 1, 50)], 1);
    expect(bucket?.latency_p50_ms).toBe(20);
    expect(bucket?.sent).toBe(2);
  });
});

describe("runCharts", () => {
  it("two charts: the planned rate against answered, rejected and dropped (the generator's own apart); p50 and p99 from the scheduled time beside the service p99 and the generator's delay", () => {
    const { rates, latency } = runCharts([interval(0, 4), interval(1, 4, 12, 30)], 2);
    expect(rates.lines.map((l) => l.key)).toEqual(["planned", "answered", "rejected", "dropped", "generator"]);
    expect(latency.lines.map((l) => l.key)).toEqual(["p50", "p99", "service-p99", "generator-delay"]);
    expect(latency.yMax).toBe(50);
    expect(rates.lines.every((l) => l.points === 2)).toBe(true);
    // Each line's latest value is shown beside its name, so a line hidden under another still reads.
    expect(latency.lines.map((l) => l.last)).toEqual([12, 35, 25, 3]);
  });

  it("draws an interval's counts over its real length: 120 orders in a 2-second interval are 60 a second, not 120", () => {
    const { rates } = runCharts([interval(1, 60), interval(3, 120, 10, 20, 2), interval(3.5, 30, 10, 20, 0.5)], 4);
    const answered = rates.lines.find((l) => l.key === "answered");
    expect(answered?.last).toBe(60);
    // 60, 120 in 2 s and 30 in 0.5 s are all 60 a second: one flat line.
    const heights = [...(answered?.d ?? "").matchAll(/[ML][\d.]+ ([\d.]+)/g)].map((m) => m[1]);
    expect(heights).toHaveLength(3);
    expect(new Set(heights).size).toBe(1);
    // Merged into one point, the bucket's rate is its orders over its seconds: 210 in 3.5 s.
    const [merged] = bucketIntervals([interval(1, 60), interval(3, 120, 10, 20, 2), interval(3.5, 30, 10, 20, 0.5)], 1);
    expect((merged?.sent ?? 0) / (merged?.seconds ?? 1)).toBeCloseTo(60, 5);
  });

  it("labels the y axis at round ticks from 0 to the top", () => {
    expect(lineChart([0], [{ key: "p50", label: "p50", values: [43] }], 1).ticks.map((t) => t.value)).toEqual([
      0, 10, 20, 30, 40, 50,
    ]);
    expect(lineChart([0], [{ key: "p50", label: "p50", values: [180] }], 1).ticks.map((t) => t.value)).toEqual([
      0, 50, 100, 150, 200,
    ]);
    const { ticks } = lineChart([0], [{ key: "p50", label: "p50", values: [7] }], 1);
    expect(ticks[0]?.y).toBe(CHART_HEIGHT - 6);
    expect(ticks.at(-1)?.y).toBe(6);
  });

  it("a long run's points, several seconds apart, still draw one line; a pause longer than three points breaks it", () => {
    // A 900 s run is stored in 4-second buckets.
    const intervals = Array.from({ length: 225 }, (_, i) => interval(i * 4 + 2, 10));
    expect(runCharts(intervals, 900).rates.lines[0]?.d.match(/M/g)).toHaveLength(1);
    const paused = intervals.filter((i) => i.at_second < 400 || i.at_second > 420);
    expect(runCharts(paused, 900).rates.lines[0]?.d.match(/M/g)).toHaveLength(2);
  });
});
