import { describe, expect, it } from "vitest";
import { CATCH_UP_FACTOR, GENERATOR_DELAY_BOUND_MS } from "../../src/runs/generator-health";
import { Histogram } from "../../src/runs/histogram";
import { ShardPump } from "../../src/runs/pump";
import { value } from "../helpers/results";
import { withRunCoordinator } from "../helpers/run-coordinator";
import { ClockedApi, plan, rig, spec, stalling } from "../helpers/run-fakes";
import { VirtualClock } from "../helpers/virtual-clock";

// A generator that stalls (its isolate busy, its machine starved) must not
// be taken for a slow target: the orders due during the stall leave at no
// more than CATCH_UP_FACTOR times the planned rate, the rest are dropped as
// the generator's, and the verdict is inconclusive instead of failed.

/** A virtual clock whose generator freezes for `stallMs`, `atMs` into the run. */
function stallingClock(atMs: number, stallMs: number): VirtualClock {
  const clock = new VirtualClock();
  clock.stallAt(clock.now() + atMs, stallMs);
  return clock;
}

describe("a generator stall", () => {
  it("after a 1.1 s stall at 50 a second the late orders leave at most twice as fast as planned, never in a burst; the rest are the generator's drops", async () => {
    const clock = stallingClock(3000, 1100);
    const api = new ClockedApi(clock, () => 20);
    const shard = spec(plan({ rate_per_second: 50, duration_seconds: 8 }), clock);
    const done = await clock.run(rig(shard, api, clock).pump.run(ShardPump.initialState(shard)));
    const sent = api.posts.map((p) => p.at - shard.starts_at_ms);
    const resumed = sent.find((at) => at > 3000 + 1000) ?? 0;
    // The plan sends 2.5 orders in 50 ms; a burst would send every order still within the allowed lateness at once.
    const within50 = sent.filter((at) => at >= resumed && at <= resumed + 50).length;
    expect(within50).toBeLessThanOrEqual(Math.ceil(2.5 * CATCH_UP_FACTOR) + 1);
    expect(done.figures.dropped).toBeGreaterThan(0);
    expect(done.figures.dropped_generator).toBe(done.figures.dropped);
    expect(done.figures.launched + done.figures.dropped).toBe(400);
    // Each dropped order counts in latency at its wait when dropped: a lower bound over a second.
    expect(done.figures.censored).toBe(done.figures.dropped);
    expect(Histogram.from(done.figures.delay).figures().max_ms).toBeGreaterThan(1000);
  });

  it("a run whose generator stalled is inconclusive, naming the generator, though its latency threshold failed", async () => {
    const clock = stallingClock(3000, 1300);
    const api = new ClockedApi(clock, () => 20);
    const summary = await withRunCoordinator(
      clock,
      () => api,
      async ({ coordinator, drive }) => {
        const started = value(
          await coordinator.start("Ada", {
            mode: "seeded",
            rate_per_second: 50,
            duration_seconds: 8,
            thresholds: [{ metric: "p99_ms", op: "<", value: 300, abort_on_fail: false, grace_seconds: 0 }],
          }),
        );
        await drive(started.run_id);
        return value(coordinator.get(started.run_id));
      },
    );
    expect(summary.generator).toMatchObject({ limited: true, bound_ms: GENERATOR_DELAY_BOUND_MS });
    expect(summary.generator.dropped).toBe(summary.dropped);
    expect(summary.verdict.result).toBe("inconclusive");
    expect(summary.verdict.failed.some((f) => f.startsWith("p99_ms < 300 failed"))).toBe(true);
    expect(summary.verdict.inconclusive_reason).toMatch(
      /^the generator, not the target, was the limit: it dropped \d+/,
    );
    expect(summary.limits.some((l) => l.startsWith("the target was the limit"))).toBe(false);
    // The interval of the stall says it was the generator's.
    expect(summary.intervals.some((i) => i.dropped_generator > 0 && i.generator_delay_ms > 1000)).toBe(true);
  });

  it("a target that stalls while the generator stalls too still fails: its service time alone breaks the threshold", async () => {
    const clock = stallingClock(3000, 1300);
    const api = new ClockedApi(clock, stalling(1000, 5000, 20));
    const summary = await withRunCoordinator(
      clock,
      () => api,
      async ({ coordinator, drive }) => {
        const started = value(
          await coordinator.start("Ada", {
            mode: "seeded",
            rate_per_second: 50,
            duration_seconds: 10,
            thresholds: [{ metric: "p99_ms", op: "<", value: 300, abort_on_fail: false, grace_seconds: 0 }],
          }),
        );
        await drive(started.run_id);
        return value(coordinator.get(started.run_id));
      },
    );
    expect(summary.generator.limited).toBe(true);
    expect(summary.service.p99_ms).toBeGreaterThan(300);
    expect(summary.verdict.result).toBe("failed");
    expect(summary.verdict.inconclusive_reason).toBeNull();
  });

  it("a slow target with every slot taken is still the target's: its drops are not the generator's, and the verdict fails", async () => {
    const clock = new VirtualClock();
    const api = new ClockedApi(clock, () => 2000);
    const shard = spec(
      plan({ rate_per_second: 20, duration_seconds: 4 }, { maxInFlight: 4, maxLatenessMs: 200 }),
      clock,
    );
    const done = await clock.run(rig(shard, api, clock).pump.run(ShardPump.initialState(shard)));
    expect(done.figures.dropped).toBeGreaterThan(40);
    expect(done.figures.dropped_generator).toBe(0);
    expect(Histogram.from(done.figures.delay).figures().p99_ms).toBeLessThan(GENERATOR_DELAY_BOUND_MS);
  });
});

describe("lateness and service time", () => {
  it("lateness ends, and service time starts, when the order is handed to fetch, not when the loop looked", async () => {
    const clock = new VirtualClock();
    // The target spends 30 ms before the request leaves (building it), then answers in 5 ms.
    const api = new ClockedApi(clock, () => 5);
    const slowStart = {
      health: () => api.health(),
      async postOrder(...args: Parameters<ClockedApi["postOrder"]>) {
        await clock.sleep(30);
        return api.postOrder(...args);
      },
    };
    const shard = spec(plan({ rate_per_second: 10, duration_seconds: 2 }), clock);
    const done = await clock.run(rig(shard, slowStart, clock).pump.run(ShardPump.initialState(shard)));
    expect(Histogram.from(done.figures.service).percentile(50)).toBeCloseTo(5, 0);
    expect(Histogram.from(done.figures.lateness).percentile(50)).toBeCloseTo(30, 0);
    expect(Histogram.from(done.figures.latency).percentile(50)).toBeCloseTo(35, 0);
    // The target is told when each order was scheduled.
    expect(api.posts.map((p) => (p.scheduledAt ?? 0) - shard.starts_at_ms)).toEqual(
      Array.from({ length: 20 }, (_, i) => i * 100),
    );
  });
});
