import { describe, expect, it } from "vitest";
import { measuresOf, RunFigures } from "../../src/runs/figures";
import { LaunchGate } from "../../src/runs/launch-gate";
import type { Threshold } from "../../src/runs/run-schemas";
import { verdictOf } from "../../src/runs/verdict";
import { plan } from "../helpers/run-fakes";

// What the generator says about itself when it saturates: a busy isolate's
// wait is never the target's, and the rate is what was really sent.

const p99Under100: Threshold = { metric: "p99_ms", op: "<", value: 100, abort_on_fail: false, grace_seconds: 0 };

function answer(figures: RunFigures, serviceMs: number, waited: boolean, index: number): void {
  figures.launched(1);
  figures.handedToFetch(2, true);
  figures.answered({ status: 201, body: null, latencyMs: serviceMs + 2, serviceMs, index, expect: null, waited });
}

describe("a generator whose answers waited on its busy isolate", () => {
  it("is not failed on the target's account: p99_ms < 100 broken by answers the generator took late is inconclusive", () => {
    const runPlan = plan({ rate_per_second: 100, duration_seconds: 10, thresholds: [p99Under100] });
    const figures = new RunFigures();
    // The target answers in 20 ms; 5 % of answers sat 200 ms in the busy isolate before it took them.
    for (let i = 0; i < 1000; i++) answer(figures, i % 20 === 0 ? 220 : 20, i % 20 === 0, i);
    const measures = measuresOf(figures.toJSON(), runPlan);
    expect(measures.service.p99_ms).toBeGreaterThan(100);
    expect(measures.generator).toMatchObject({ limited: true, answers_waited: 50 });
    const verdict = verdictOf("completed", runPlan, figures.toJSON(), measures);
    expect(verdict.result).toBe("inconclusive");
    expect(verdict.inconclusive_reason).toMatch(/took 50 answers late on its busy isolate/);
  });

  it("still fails a target that was slow on answers taken on time", () => {
    const runPlan = plan({ rate_per_second: 100, duration_seconds: 10, thresholds: [p99Under100] });
    const figures = new RunFigures();
    for (let i = 0; i < 1000; i++) answer(figures, i % 20 === 0 ? 220 : i % 10 === 5 ? 300 : 20, i % 20 === 0, i);
    const measures = measuresOf(figures.toJSON(), runPlan);
    expect(verdictOf("completed", runPlan, figures.toJSON(), measures).result).toBe("failed");
  });

  it("drops made while its own loop is behind are the generator's, even with every slot taken", () => {
    const gate = new LaunchGate(4);
    gate.looked(true);
    expect(gate.dropCause(true, 500, 100)).toBe("generator");
    expect(gate.dropCause(false, 500, 100)).toBe("target");
    expect(gate.dropCause(false, 50, 100)).toBe("fan-out");
    gate.looked(false);
    expect(gate.dropCause(false, 500, 100)).toBe("generator");
  });
});

describe("the catch-up pace, a token bucket", () => {
  it("one wake-up releases every late order the pace allows up to now, not one", () => {
    // 1000 a second for this shard: an order every ms; after a stall, twice that pace with 4 ms of credit.
    const gate = new LaunchGate(4);
    const now = 10_000;
    let released = 0;
    for (let due = now - 500; due < now; due++) {
      if (gate.decide(due, 1, now, 1000, true) !== "send") break;
      gate.sent(now, 1);
      released++;
    }
    // The credit of one slot (4 ms) at twice the pace: 8 orders, then the pace holds the rest.
    expect(released).toBe(9);
    expect(gate.decide(now - 400, 1, now, 1000, true)).toBe("wait for pacing");
  });
});

describe("achieved_rate", () => {
  it("counts the orders sent within the schedule's window, not those sent late after it", () => {
    const runPlan = plan({ rate_per_second: 10, duration_seconds: 10 });
    const figures = new RunFigures();
    for (let i = 0; i < 100; i++) answer(figures, 20, false, i);
    expect(measuresOf(figures.toJSON(), runPlan).achieved_rate).toBe(10);
    for (let i = 0; i < 10; i++) figures.sentAfterSchedule();
    expect(measuresOf(figures.toJSON(), runPlan).achieved_rate).toBe(9);
  });
});

describe("drops while the generator itself was the limit", () => {
  it("are not counted as held back by the target: the run is inconclusive, not failed", () => {
    const runPlan = plan({ rate_per_second: 100, duration_seconds: 10 });
    const figures = new RunFigures();
    for (let i = 0; i < 900; i++) answer(figures, 20, false, i);
    // 50 dropped with every slot taken (the target's, on their own), 50 dropped with slots free (the generator's).
    for (let i = 0; i < 50; i++) figures.dropped(1200, "target");
    for (let i = 0; i < 50; i++) figures.dropped(1200, "generator");
    const measures = measuresOf(figures.toJSON(), runPlan);
    expect(measures.generator.limited).toBe(true);
    const verdict = verdictOf("completed", runPlan, figures.toJSON(), measures);
    expect(verdict.result).toBe("inconclusive");
    expect(verdict.failed.join(" ")).not.toContain("held back by the target");
  });
});
