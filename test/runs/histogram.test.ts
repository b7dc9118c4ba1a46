import { describe, expect, it } from "vitest";
import { Histogram, RELATIVE_ERROR } from "../../src/runs/histogram";
import { Prng } from "../../src/synth/prng";

// Percentiles within 1 % of an exact sort, in bounded memory, and histograms
// that add up (shards) and subtract (intervals).

function exact(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

function sample(seed: number, n: number): number[] {
  const rng = new Prng(seed);
  // Mostly fast answers with a long tail, as a real target gives.
  return Array.from({ length: n }, () => (rng.next() < 0.97 ? 2 + rng.next() * 30 : 200 + rng.next() * 4000));
}

describe("the latency histogram", () => {
  it.each([50, 90, 95, 99, 99.9])("p%d is within the relative error of the exact value", (p) => {
    const values = sample(7, 20_000);
    const histogram = new Histogram();
    for (const v of values) histogram.record(v);
    const truth = exact(values, p);
    expect(Math.abs(histogram.percentile(p) - truth) / truth).toBeLessThanOrEqual(RELATIVE_ERROR + 0.001);
  });

  it("keeps the exact max, counts zeros, and stays small however many values it holds", () => {
    const histogram = new Histogram();
    for (let i = 0; i < 100_000; i++) histogram.record((i % 5000) * 0.37);
    histogram.record(0);
    expect(histogram.count).toBe(100_001);
    expect(histogram.figures().max_ms).toBe(Math.round(4999 * 0.37 * 100) / 100);
    expect(Object.keys(histogram.toJSON().buckets).length).toBeLessThan(1000);
    expect(histogram.toJSON().zeros).toBeGreaterThan(0);
    expect(new Histogram().percentile(99)).toBe(0);
  });

  it("two shards' histograms add up to the histogram of all their values", () => {
    const a = sample(1, 3000);
    const b = sample(2, 5000);
    const left = new Histogram();
    const right = new Histogram();
    const all = new Histogram();
    for (const v of a) {
      left.record(v);
      all.record(v);
    }
    for (const v of b) {
      right.record(v);
      all.record(v);
    }
    const merged = Histogram.from(left.toJSON()).add(Histogram.from(right.toJSON()));
    expect(merged.toJSON()).toEqual(all.toJSON());
  });

  it("an interval is the difference of two readings of the same histogram", () => {
    const cumulative = new Histogram();
    for (const v of [5, 6, 7]) cumulative.record(v);
    const earlier = Histogram.from(cumulative.toJSON());
    for (const v of [900, 950, 1000]) cumulative.record(v);
    const interval = cumulative.since(earlier);
    expect(interval.count).toBe(3);
    expect(interval.percentile(50)).toBeGreaterThan(890);
    expect(interval.percentile(50)).toBeLessThan(1000 * (1 + RELATIVE_ERROR));
  });
});
