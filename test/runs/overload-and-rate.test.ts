import { describe, expect, it } from "vitest";
import { emptyFigures, measuresOf, plannedWindowRate } from "../../src/runs/figures";
import { ArrivalSchedule } from "../../src/runs/plan";
import { ShardPump } from "../../src/runs/pump";
import type { Threshold } from "../../src/runs/run-schemas";
import { summaryOf } from "../../src/runs/summary";
import { value } from "../helpers/results";
import { withRunCoordinator } from "../helpers/run-coordinator";
import { ClockedApi, plan, queueing, rig, runRecord, spec } from "../helpers/run-fakes";
import { VirtualClock } from "../helpers/virtual-clock";

// Overload must show in latency (a dropped order counts at its wait so far,
// and a percentile past the dropped share is a lower bound), and the rate a
// run reports is over the schedule's own window, with no time lost at a
// hand-over between invocations.

const threshold = (metric: Threshold["metric"], op: Threshold["op"], bound: number): Threshold => ({
  metric,
  op,
  value: bound,
  abort_on_fail: false,
  grace_seconds: 0,
});

describe("overload", () => {
  it("at 200 a second against a target that takes 80 a second, p99 is a lower bound and p99_ms < 2500 fails on latency alone", async () => {
    const clock = new VirtualClock();
    // 4 at once, 50 ms each, the rest queued: capacity 80 a second. (Changed with issue 54: the target queues, as the
    // reference target's schedule c does; a generator holding only 4 requests to a target that answers every one in
    // 50 ms is the generator's fan-out, not the target, and is judged so in test/runs/platform-limits.test.ts.)
    const api = new ClockedApi(clock, queueing(4, 50));
    const thresholds = [
      threshold("p99_ms", "<", 2500),
      threshold("p50_ms", ">", 500),
      threshold("service_p99_ms", "<", 2500),
    ];
    const runPlan = plan({ rate_per_second: 200, duration_seconds: 10, thresholds }, { maxLatenessMs: 1000 });
    const shard = spec(runPlan, clock);
    const done = await clock.run(rig(shard, api, clock).pump.run(ShardPump.initialState(shard)));
    const record = { ...runRecord(runPlan), status: "completed" as const, figures: done.figures };
    const summary = summaryOf(record, "http://localhost/runs/R", clock.now());
    expect(summary.dropped / 2000).toBeGreaterThan(0.5);
    expect(summary.generator.dropped).toBe(0);
    // Every scheduled order is in the latency figures, the dropped ones censored.
    expect(summary.latency.count).toBe(2000);
    expect(summary.latency.censored).toBe(summary.dropped);
    expect(summary.latency.lower_bounds).toEqual(["p50_ms", "p90_ms", "p95_ms", "p99_ms", "p999_ms", "max_ms"]);
    expect(summary.latency.p99_ms).toBeLessThan(2500);
    const checks = Object.fromEntries(summary.verdict.checks.map((c) => [c.check, c]));
    // A bound below 2500 does not show the truth is below it: fails.
    expect(checks["p99_ms < 2500"]).toMatchObject({ passed: false, at_least: true });
    // A bound already above 500 shows the truth is: passes.
    expect(checks["p50_ms > 500"]).toMatchObject({ passed: true, at_least: true });
    // Service time is about sent orders only, and is no lower bound.
    expect(checks["service_p99_ms < 2500"]).toMatchObject({ passed: true, at_least: false });
    expect(summary.verdict.result).toBe("failed");
    expect(summary.verdict.failed[0]).toMatch(/^p99_ms < 2500 failed: measured at least [\d.]+ ms, a lower bound/);
    expect(summary.limits.some((l) => l.startsWith("latency p50_ms, p90_ms"))).toBe(true);
  });

  it("below 1 % censored, p99 is a measurement; max, past every measured order, is a lower bound", () => {
    const figures = emptyFigures();
    const record = runRecord(plan({ rate_per_second: 10, duration_seconds: 20 }));
    const withDrops = { ...record.figures, ...figures };
    const measures = measuresOf(
      { ...withDrops, launched: 199, dropped: 1, censored: 1, latency: { ...figures.latency, count: 200 } },
      record.plan,
    );
    expect(measures.latency.lower_bounds).toEqual(["p999_ms", "max_ms"]);
  });
});

describe("the achieved rate", () => {
  it("is over the schedule's window: a run that sent every order of 50 a second achieved 50, not less for start-up and drain", () => {
    const runPlan = plan({ rate_per_second: 50, duration_seconds: 20 });
    const all = measuresOf({ ...emptyFigures(), launched: 1000 }, runPlan);
    expect(all.achieved_rate).toBe(50);
    const half = measuresOf({ ...emptyFigures(), launched: 500, dropped: 500 }, runPlan);
    expect(half.achieved_rate).toBe(25);
    // A ramp: over its first 200 orders, the plan's own rate there.
    const ramp = plan({ stages: [{ duration_seconds: 20, rate_per_second: 40 }] });
    const schedule = new ArrivalSchedule(0, ramp.stages);
    expect(plannedWindowRate(ramp, 200)).toBeCloseTo(199 / schedule.dueAt(199), 6);
  });

  it("an ended run keeps its plan's rate and reports what it achieved; achieved_rate >= 49.5 passes at 50 a second", async () => {
    const clock = new VirtualClock();
    const api = new ClockedApi(clock, () => 20);
    const summary = await withRunCoordinator(
      clock,
      () => api,
      async ({ coordinator, drive }) => {
        const started = value(
          await coordinator.start("Ada", {
            mode: "seeded",
            rate_per_second: 50,
            duration_seconds: 20,
            thresholds: [threshold("achieved_rate", ">=", 49.5)],
          }),
        );
        await drive(started.run_id);
        return value(coordinator.get(started.run_id));
      },
    );
    expect(summary.status).toBe("completed");
    expect(summary).toMatchObject({ planned_rate: 50, achieved_rate: 50, current_rate: 0 });
    expect(summary.verdict).toMatchObject({ result: "passed" });
  });
});

describe("a hand-over between invocations", () => {
  it("keeps the schedule: no time is lost when the next invocation starts 55 ms later", async () => {
    const clock = new VirtualClock();
    const api = new ClockedApi(clock, () => 10);
    const runPlan = plan({ rate_per_second: 20, duration_seconds: 6 });
    const shard = spec(runPlan, clock);
    let state = ShardPump.initialState(shard);
    while (state.status === "running") {
      state = await clock.run(rig(shard, api, clock).pump.run(state, clock.now() + 2000));
      clock.advance(55);
    }
    expect(state.figures).toMatchObject({ answered: 120, dropped: 0 });
    const schedule = new ArrivalSchedule(runPlan.start_rate, runPlan.stages);
    expect(api.posts.map((p) => (p.scheduledAt ?? 0) - shard.starts_at_ms)).toEqual(
      Array.from({ length: 120 }, (_, i) => Math.round(schedule.dueAt(i) * 1000)),
    );
  });

  it("a gap longer than the allowed lateness is downtime, not a hand-over: the schedule moves past it", async () => {
    const clock = new VirtualClock();
    const api = new ClockedApi(clock, () => 10);
    const shard = spec(plan({ rate_per_second: 20, duration_seconds: 4 }), clock);
    let state = await clock.run(rig(shard, api, clock).pump.run(ShardPump.initialState(shard), clock.now() + 2000));
    clock.advance(5000);
    state = await clock.run(rig(shard, api, clock).pump.run(state));
    expect(state.figures).toMatchObject({ answered: 80, dropped: 0 });
    expect(Math.max(...api.posts.map((p) => (p.scheduledAt ?? 0) - shard.starts_at_ms))).toBeGreaterThan(5000);
  });
});
