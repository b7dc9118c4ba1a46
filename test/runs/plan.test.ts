import { describe, expect, it } from "vitest";
import { ArrivalSchedule, planRun } from "../../src/runs/plan";
import { plan, TEST_CAPS } from "../helpers/run-fakes";

// What a run request becomes: the single-rate form and stages are one plan,
// the schedule spreads orders over each second, and every refusal says what
// to change.

const caps = { ...TEST_CAPS, maxRate: 50, maxSeconds: 900, maxOrders: 20_000, shardRate: 20 };
const refused = (request: Parameters<typeof planRun>[0]) => {
  const result = planRun(request, 1, caps);
  return result.ok ? "planned" : result.error.message;
};

describe("the single-rate form", () => {
  it.each([
    [{ rate_per_second: 5, duration_seconds: 2 }, 10],
    [{ rate_per_second: 4, duration_seconds: 30, ramp_seconds: 2 }, 116],
    [{ rate_per_second: 20, duration_seconds: 300, ramp_seconds: 60 }, 5400],
  ])("%j plans %d orders, as it always did", (request, total) => {
    expect(plan(request).total_orders).toBe(total);
  });

  it("is a ramp stage from 0 and a hold stage", () => {
    expect(plan({ rate_per_second: 4, duration_seconds: 30, ramp_seconds: 2 })).toMatchObject({
      start_rate: 0,
      stages: [
        { duration_seconds: 2, rate_per_second: 4 },
        { duration_seconds: 28, rate_per_second: 4 },
      ],
      peak_rate: 4,
      duration_seconds: 30,
    });
  });
});

describe("stages", () => {
  it("fan out over as many shards as the peak rate needs", () => {
    const result = planRun({ mode: "seeded", stages: [{ duration_seconds: 10, rate_per_second: 45 }] }, 1, caps);
    expect(result.ok && result.value.shards).toBe(3);
  });

  it.each([
    [{ mode: "seeded" as const }, "say what load to send: rate_per_second with duration_seconds, or stages such as"],
    [
      { mode: "seeded" as const, rate_per_second: 5, duration_seconds: 5, stages: [] },
      "give the load either as stages or as rate_per_second",
    ],
    [{ mode: "seeded" as const, stages: [] }, "stages must list at least one stage"],
    [
      { mode: "seeded" as const, stages: [{ duration_seconds: 0, rate_per_second: 5 }] },
      "stages[0].duration_seconds must be a whole number of seconds, at least 1 (stages follow one another and cannot go back in time), got 0",
    ],
    [
      {
        mode: "seeded" as const,
        stages: [
          { duration_seconds: 5, rate_per_second: 5 },
          { duration_seconds: -3, rate_per_second: 5 },
        ],
      },
      "stages[1].duration_seconds must be a whole number",
    ],
    [
      { mode: "seeded" as const, stages: [{ duration_seconds: 5, rate_per_second: 51 }] },
      "stages[0].rate_per_second 51 exceeds the server's MAX_RUN_RATE of 50",
    ],
    [
      { mode: "seeded" as const, stages: [{ duration_seconds: 5, rate_per_second: -1 }] },
      "stages[0].rate_per_second must be 0 or more, got -1",
    ],
    [
      {
        mode: "seeded" as const,
        stages: [
          { duration_seconds: 600, rate_per_second: 1 },
          { duration_seconds: 301, rate_per_second: 1 },
        ],
      },
      "the stages last 901 s in all, over the server's MAX_RUN_SECONDS of 900",
    ],
    [
      { mode: "seeded" as const, stages: [{ duration_seconds: 5, rate_per_second: 0 }] },
      "that plan sends no order at all",
    ],
    [
      { mode: "seeded" as const, stages: [{ duration_seconds: 5, rate_per_second: 5 }], duration_seconds: 5 },
      "with stages, each stage has its own duration_seconds",
    ],
  ])("%j is refused: %s", (request, message) => {
    expect(refused(request)).toContain(message);
  });
});

describe("drills and thresholds", () => {
  const base = { mode: "seeded" as const, rate_per_second: 5, duration_seconds: 10 };
  it.each([
    [
      { ...base, invalid_share: { out_of_stock: 1.5 } },
      "invalid_share.out_of_stock must be a share between 0 and 1, got 1.5",
    ],
    [
      { ...base, invalid_share: { out_of_stock: -0.1 } },
      "invalid_share.out_of_stock must be a share between 0 and 1, got -0.1",
    ],
    [
      { ...base, invalid_share: { out_of_stock: 0.6, total_mismatch: 0.6 } },
      "the shares in invalid_share add up to 1.2; together they can be at most 1",
    ],
    [{ ...base, mode: "simple" as const, invalid_share: { out_of_stock: 0.1 } }, "invalid_share needs mode seeded"],
    [
      {
        ...base,
        thresholds: [
          { metric: "p99_ms" as const, op: "<" as const, value: 300, abort_on_fail: true, grace_seconds: 20 },
        ],
      },
      "thresholds[0].grace_seconds 20 is longer than the run (10 s)",
    ],
  ])("%j is refused: %s", (request, message) => {
    expect(refused(request)).toContain(message);
  });
});

describe("the arrival schedule", () => {
  it("spreads a constant rate evenly: order i is due at i / rate", () => {
    const schedule = new ArrivalSchedule(8, [{ duration_seconds: 3, rate_per_second: 8 }]);
    expect(schedule.totalOrders).toBe(24);
    expect(Array.from({ length: 24 }, (_, i) => schedule.dueAt(i))).toEqual(
      Array.from({ length: 24 }, (_, i) => i / 8),
    );
  });

  it("on a ramp, orders come closer together as the rate climbs", () => {
    const schedule = new ArrivalSchedule(0, [{ duration_seconds: 10, rate_per_second: 10 }]);
    expect(schedule.totalOrders).toBe(50);
    // Half the ramp's orders (area t²/2) are due by t = sqrt(50) ≈ 7.07 s.
    expect(schedule.dueAt(25)).toBeCloseTo(Math.sqrt(50), 6);
    expect(schedule.rateAt(5)).toBe(5);
    expect(schedule.rateAt(11)).toBe(0);
  });

  it("skips a zero-rate stage", () => {
    const schedule = new ArrivalSchedule(10, [
      { duration_seconds: 1, rate_per_second: 10 },
      { duration_seconds: 5, rate_per_second: 0 },
    ]);
    expect(schedule.totalOrders).toBe(35);
    expect(schedule.dueAt(9)).toBeCloseTo(0.9, 9);
    expect(schedule.dueAt(10)).toBeCloseTo(1, 9);
  });
});
