import { describe, expect, it } from "vitest";
import { formatRow, goalMet, RoundBook, type Row } from "../../scripts/lib/bench-rounds.ts";

// A ratio is read within one round. Here the machine drifts between rounds
// (numbered from 0, as RoundPair.round is): ours is fastest in round 0 and
// the floor in round 1, so the best figure of each side (100 against 140)
// makes a ratio no round had.
function drifting(): RoundBook {
  const book = new RoundBook();
  for (const [ours, floor] of [
    [100, 110],
    [90, 140],
    [80, 85],
  ] as const) {
    book.record("ours", ours);
    book.record("floor", floor);
  }
  return book;
}

const rate: Row = {
  label: "rate",
  ours: "ours",
  base: "floor",
  better: "higher",
  unit: "/s",
  goal: { ratio: 0.85, better: "higher" },
};

describe("RoundBook.bestRound", () => {
  it("pairs each side's figures by round and picks the best ratio, highest for rates", () => {
    expect(drifting().bestRound("ours", "floor", "higher")).toMatchObject({ round: 2, ours: 80, base: 85 });
  });

  it("picks the lowest ratio for latency and CPU", () => {
    expect(drifting().bestRound("ours", "floor", "lower")).toMatchObject({ round: 1, ours: 90, base: 140 });
  });

  it("skips a round where one side has no figure", () => {
    const book = new RoundBook();
    book.record("ours", 50);
    book.record("floor", Number.NaN);
    book.record("ours", 40);
    book.record("floor", 100);
    expect(book.bestRound("ours", "floor", "higher")).toMatchObject({ round: 1, ratio: 0.4 });
    expect(book.bestRound("ours", "missing", "higher")).toBeUndefined();
  });
});

describe("goals and rows", () => {
  it("hold a goal to the best round's ratio, not to the best figures of different rounds", () => {
    const book = drifting();
    expect(goalMet(book, rate)).toBe(true);
    expect(goalMet(book, { ...rate, goal: { ratio: 0.95, better: "higher" } })).toBe(false);
  });

  it("print that round's two figures, its ratio, the verdict and every round's ratio", () => {
    const line = formatRow(drifting(), rate);
    expect(line).toMatch(/80\/s\s+85\/s\s+0\.94\s+>= 0\.85 met\s+0\.91 0\.64 0\.94$/);
  });

  it("print n/a and no verdict of met when no round took both sides", () => {
    const book = new RoundBook();
    book.record("ours", 10);
    expect(goalMet(book, rate)).toBeUndefined();
    expect(formatRow(book, rate)).toMatch(/n\/a\s+n\/a\s+n\/a\s+>= 0\.85 NOT met/);
  });
});
