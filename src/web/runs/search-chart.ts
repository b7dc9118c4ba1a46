/**
 * The geometry of a capacity search's chart: latency against rate, one point
 * per step, p50 and p99, with the objective's latency bounds as level lines
 * and the knee as the band between the best passing and the lowest failing
 * rate. Pure numbers and SVG path data, no markup, so it is tested without a
 * page; the "hockey stick" a person would rather look at than read.
 */
import { searchReading } from "../../runs/capacity-answer";
import type { CapacitySearch } from "../../runs/capacity-schemas";
import { METRICS } from "../../runs/metrics";
import { CHART_HEIGHT, CHART_WIDTH, niceCeiling } from "./run-chart";

const PAD = 6;
const round1 = (n: number) => Math.round(n * 10) / 10;

export interface SearchPoint {
  readonly x: number;
  readonly y: number;
  readonly rate: number;
  readonly ms: number;
  /** Only a lower bound of the truth (orders were dropped): drawn hollow, labelled "≥". */
  readonly atLeast: boolean;
  readonly verdict: string;
}

export interface SearchSeries {
  readonly key: "p50" | "p99";
  readonly label: string;
  readonly d: string;
  readonly points: readonly SearchPoint[];
}

export interface SearchChart {
  readonly width: number;
  readonly height: number;
  readonly xMax: number;
  readonly yMax: number;
  readonly ticks: readonly { readonly y: number; readonly value: number }[];
  readonly series: readonly SearchSeries[];
  /** One level line per latency bound of the objective, e.g. p99_ms < 300. */
  readonly objective: readonly { readonly y: number; readonly label: string }[];
  /**
   * The band the knee lies in: from the best passing rate to the lowest failing one (the right edge when none failed).
   */
  readonly knee: { readonly x1: number; readonly x2: number; readonly label: string } | null;
  /** The legend's words for the knee, band or not. */
  readonly kneeWords: string;
}

export function searchChart(search: CapacitySearch): SearchChart {
  // The warm-up is not judged and a step still running has no final figures: neither is a point yet.
  const steps = search.steps
    .filter((step) => step.phase !== "warm-up" && step.verdict !== null)
    .sort((a, b) => a.rate_per_second - b.rate_per_second);
  const bounds = search.plan.objective.filter((t) => METRICS[t.metric].unit === "ms");
  const xMax = niceCeiling(Math.max(search.plan.highest_rate, ...steps.map((s) => s.rate_per_second)));
  const yMax = niceCeiling(Math.max(0, ...steps.map((s) => s.p99_ms), ...bounds.map((t) => t.value)));
  const px = (rate: number) => round1(PAD + (rate / xMax) * (CHART_WIDTH - 2 * PAD));
  const py = (ms: number) => round1(CHART_HEIGHT - PAD - (ms / yMax) * (CHART_HEIGHT - 2 * PAD));
  const series = (["p50", "p99"] as const).map((key) => {
    const field = `${key}_ms` as const;
    const points = steps.map((step) => ({
      x: px(step.rate_per_second),
      y: py(step[field]),
      rate: step.rate_per_second,
      ms: step[field],
      atLeast: step.lower_bounds.includes(field),
      verdict: step.verdict ?? "",
    }));
    const d = points.map((p, i) => `${i === 0 ? "M" : "L"}${p.x} ${p.y}`).join(" ");
    return { key, label: key, d, points };
  });
  const count = 4;
  const ticks = Array.from({ length: count + 1 }, (_, i) => {
    const value = Math.round(((yMax * i) / count) * 1000) / 1000;
    return { y: py(value), value };
  });
  // The band and its words come from the answer's reading, so the legend says what the answer says.
  const reading = searchReading(search);
  const knee = reading.knee
    ? {
        x1: px(reading.knee.from),
        x2: reading.knee.to === null ? CHART_WIDTH - PAD : px(reading.knee.to),
        label: reading.kneeWords,
      }
    : null;
  return {
    width: CHART_WIDTH,
    height: CHART_HEIGHT,
    xMax,
    yMax,
    ticks,
    series,
    objective: bounds.map((t) => ({ y: py(t.value), label: `${t.metric} ${t.op} ${t.value}` })),
    knee,
    kneeWords: reading.kneeWords,
  };
}
