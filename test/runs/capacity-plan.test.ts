import { describe, expect, it } from "vitest";
import { planCapacitySearch, type SearchRequest, stepRequest } from "../../src/runs/capacity-plan";
import { type JudgedStep, nextMove } from "../../src/runs/capacity-search";
import { value } from "../helpers/results";
import { TEST_CAPS } from "../helpers/run-fakes";

// A capacity search's plan and its moves, without any traffic: what is
// refused (each with what to change), and where the search goes from a
// sequence of verdicts.

const P99 = { metric: "p99_ms" as const, op: "<" as const, value: 300, abort_on_fail: false, grace_seconds: 0 };
const REQUEST: SearchRequest = {
  objective: [P99],
  lowest_rate: 10,
  highest_rate: 200,
  step_seconds: 10,
  mode: "seeded",
};
const CAPS = { ...TEST_CAPS, maxRate: 250, maxSeconds: 900, maxOrders: 20_000 };

function refusal(request: Partial<SearchRequest>): string {
  const planned = planCapacitySearch({ ...REQUEST, ...request }, 1, CAPS);
  if (planned.ok) throw new Error("planned, not refused");
  expect(planned.error.code).toBe("bad_request");
  return planned.error.message;
}

describe("refusals", () => {
  it.each([
    [{ lowest_rate: 0.5 }, "lowest_rate must be at least 1 order per second, got 0.5"],
    [
      { highest_rate: 300 },
      "highest_rate 300 exceeds the server's MAX_RUN_RATE of 250; ask for a lower rate or raise MAX_RUN_RATE in the server environment",
    ],
    [{ highest_rate: 5 }, "highest_rate must be at least lowest_rate (10), got 5"],
    [{ tolerance: 0 }, "tolerance must be more than 0 and less than 1, e.g. 0.1 for 10 %, got 0"],
    [{ tolerance: 1 }, "tolerance must be more than 0 and less than 1, e.g. 0.1 for 10 %, got 1"],
    [
      { objective: [] },
      'objective must name at least one threshold, e.g. [{"metric": "p99_ms", "op": "<", "value": 300}]',
    ],
    [
      { step_seconds: 3 },
      "step_seconds 3 is too short to measure: at lowest_rate 10 a step must last at least 10 s, so that it sends 100 orders (a p99 over fewer is only the slowest order) and never less than 5 s (the run is read once a second, so a shorter step is judged mostly on its start-up); ask for step_seconds 10 or more, or a higher lowest_rate",
    ],
    [
      { highest_rate: 250, step_seconds: 100 },
      "a step at highest_rate would be refused as a run: that run would send 25000 orders, over the server's MAX_RUN_ORDERS of 20000; lower the rate or the duration, or raise MAX_RUN_ORDERS in the server environment",
    ],
  ])("%j", (request, message) => {
    expect(refusal(request)).toBe(message);
  });

  it("the shortest step is 5 s at high rates, and 100 orders' worth at low ones", () => {
    expect(value(planCapacitySearch({ ...REQUEST, lowest_rate: 50, step_seconds: 5 }, 1, CAPS)).step_seconds).toBe(5);
    expect(refusal({ lowest_rate: 50, step_seconds: 4 })).toMatch(
      /^step_seconds 4 is too short to measure: at lowest_rate 50 a step must last at least 5 s/,
    );
    expect(refusal({ lowest_rate: 1, step_seconds: 99 })).toMatch(/at least 100 s/);
  });

  it("the confirming step is three steps long within the caps, and each step replays with its own seed", () => {
    const plan = value(planCapacitySearch(REQUEST, 41, CAPS));
    expect(plan).toMatchObject({ tolerance: 0.1, confirm_seconds: 30, pause_seconds: 3, warmup_seconds: 0, seed: 41 });
    expect(stepRequest(plan, "confirm", 80, 9)).toEqual({
      rate_per_second: 80,
      duration_seconds: 30,
      mode: "seeded",
      seed: 50,
      thresholds: [P99],
    });
    expect(stepRequest(plan, "warm-up", 10, 0).thresholds).toEqual([]);
    expect(value(planCapacitySearch({ ...REQUEST, step_seconds: 90 }, 1, CAPS)).confirm_seconds).toBe(100);
  });
});

describe("moves", () => {
  /** Runs the moves against a target that passes at or below `limit`, and fails a confirm above `confirmLimit`. */
  function walk(limit: number, confirmLimit = limit, request: Partial<SearchRequest> = {}) {
    const plan = value(planCapacitySearch({ ...REQUEST, ...request }, 1, CAPS));
    const steps: JudgedStep[] = [];
    for (let i = 0; i < 40; i++) {
      const move = nextMove(plan, steps);
      if (move.kind === "done") return { steps, outcome: move.outcome };
      const passed = move.phase === "confirm" ? move.rate <= confirmLimit : move.rate <= limit;
      steps.push({ phase: move.phase, rate: move.rate, passed });
    }
    throw new Error("no end");
  }

  // A target that holds 80/s for a short step but only 60/s for a long one: each failed confirm lowers the bound.
  it("a confirming step that fails makes its rate a fail, and the narrowing goes on below it", () => {
    const { steps, outcome } = walk(80, 60);
    expect(steps.map((s) => `${s.phase} ${s.rate}`)).toEqual([
      "grow 10",
      "grow 20",
      "grow 40",
      "grow 80",
      "grow 160",
      "narrow 120",
      "narrow 100",
      "narrow 90",
      "narrow 85",
      "confirm 80",
      "narrow 60",
      "narrow 70",
      "narrow 75",
      "confirm 75",
      "confirm 70",
      "narrow 65",
      "confirm 65",
      "confirm 60",
    ]);
    expect(outcome).toBe("found");
  });

  it("a warm-up comes first, at the lowest rate, and is not judged", () => {
    const { steps, outcome } = walk(1000, 1000, { warmup_seconds: 5, highest_rate: 40 });
    expect(steps.map((s) => `${s.phase} ${s.rate}`)).toEqual([
      "warm-up 10",
      "grow 10",
      "grow 20",
      "grow 40",
      "confirm 40",
    ]);
    expect(outcome).toBe("above_cap");
  });
});
