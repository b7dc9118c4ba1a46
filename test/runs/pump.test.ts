import { describe, expect, it } from "vitest";
import { Histogram } from "../../src/runs/histogram";
import { ShardPump } from "../../src/runs/pump";
import { previewOrder } from "../../src/synth/target-check";
import { ClockedApi, plan, rig, spec, stalling } from "../helpers/run-fakes";
import { VirtualClock } from "../helpers/virtual-clock";

// One shard of a run on a virtual clock: orders leave at their scheduled
// instants (an open model), latency is timed from those instants, and what
// cannot leave in time is dropped and counted.

describe("an open model", () => {
  it("sends every planned order once, in seed order, each at its own instant spread over the second", async () => {
    const clock = new VirtualClock();
    const api = new ClockedApi(clock);
    const runPlan = plan({ rate_per_second: 10, duration_seconds: 5 });
    const shard = spec(runPlan, clock);
    const { pump } = rig(shard, api, clock);
    const done = await clock.run(pump.run(ShardPump.initialState(shard)));
    expect(done.status).toBe("completed");
    expect(done.figures).toMatchObject({
      launched: 50,
      answered: 50,
      accepted: 50,
      dropped: 0,
      errors: 0,
      status_counts: { "201": 50 },
    });
    expect(new Set(api.posts.map((p) => p.id)).size).toBe(50);
    expect(api.posts[0]?.id).toBe(previewOrder("seeded", 4242).order.request_id);
    // 10 a second: one every 100 ms from the start, not ten at once.
    expect(api.posts.map((p) => p.at - shard.starts_at_ms)).toEqual(Array.from({ length: 50 }, (_, i) => i * 100));
  });

  it("keeps sending on schedule while the target slows: more requests go in flight instead of fewer leaving", async () => {
    const clock = new VirtualClock();
    // Every answer takes 450 ms, so at 20 a second about nine are in flight at once.
    const api = new ClockedApi(clock, () => 450);
    const shard = spec(plan({ rate_per_second: 20, duration_seconds: 3 }), clock);
    const done = await clock.run(rig(shard, api, clock).pump.run(ShardPump.initialState(shard)));
    expect(done.figures.dropped).toBe(0);
    expect(api.maxInFlight).toBeGreaterThanOrEqual(9);
    expect(api.posts.map((p) => p.at - shard.starts_at_ms)).toEqual(Array.from({ length: 60 }, (_, i) => i * 50));
    expect(Histogram.from(done.figures.latency).percentile(50)).toBeCloseTo(450, -1);
  });

  it("drops, and counts, the orders that cannot leave within max_lateness_ms once the in-flight cap is reached", async () => {
    const clock = new VirtualClock();
    const api = new ClockedApi(clock, () => 2000);
    const shard = spec(
      plan({ rate_per_second: 20, duration_seconds: 4 }, { maxInFlight: 4, maxLatenessMs: 200 }),
      clock,
    );
    const done = await clock.run(rig(shard, api, clock).pump.run(ShardPump.initialState(shard)));
    expect(api.maxInFlight).toBe(4);
    expect(done.figures.dropped).toBeGreaterThan(40);
    expect(done.figures.launched + done.figures.dropped).toBe(80);
    expect(done.figures.answered).toBe(done.figures.launched);
    expect(done.figures.max_in_flight).toBe(4);
  });

  it("ramps and steps as the stages say: the rate moves linearly, a zero-rate stage sends nothing", async () => {
    const clock = new VirtualClock();
    const api = new ClockedApi(clock);
    const runPlan = plan({
      stages: [
        { duration_seconds: 2, rate_per_second: 10 },
        { duration_seconds: 2, rate_per_second: 0 },
        { duration_seconds: 1, rate_per_second: 0 },
        { duration_seconds: 1, rate_per_second: 20 },
      ],
    });
    const shard = spec(runPlan, clock);
    await clock.run(rig(shard, api, clock).pump.run(ShardPump.initialState(shard)));
    const seconds = api.posts.map((p) => Math.floor((p.at - shard.starts_at_ms) / 1000));
    const perSecond = [0, 1, 2, 3, 4, 5].map((s) => seconds.filter((x) => x === s).length);
    // Ramp 0 -> 10 over 2 s (10 orders), down to 0 over 2 s (10), nothing for 1 s, then 0 -> 20 in 1 s (10).
    expect(runPlan.total_orders).toBe(30);
    expect(perSecond[0]).toBeLessThan(perSecond[1] ?? 0);
    expect(perSecond[4]).toBe(0);
    expect(perSecond.reduce((a, b) => a + b, 0)).toBe(30);
  });
});

describe("honest latency", () => {
  it("against a target that stalls 1 s every 5 s, the latency from the scheduled time has a p99 of about a second, though most service times stay short", async () => {
    const clock = new VirtualClock();
    const api = new ClockedApi(clock, stalling(1000, 5000));
    // Few requests may be in flight, so orders wait for a slot during the stall rather than in the target.
    const shard = spec(
      plan({ rate_per_second: 50, duration_seconds: 20 }, { maxInFlight: 2, maxLatenessMs: 5000 }),
      clock,
    );
    const done = await clock.run(rig(shard, api, clock).pump.run(ShardPump.initialState(shard)));
    const latency = Histogram.from(done.figures.latency);
    const service = Histogram.from(done.figures.service);
    expect(done.figures.dropped).toBe(0);
    expect(latency.percentile(99)).toBeGreaterThanOrEqual(950);
    expect(service.percentile(90)).toBeLessThan(50);
    expect(Histogram.from(done.figures.lateness).percentile(99)).toBeGreaterThan(500);
  });

  it("the same stall measured from the moment each order left (what a closed-loop generator reports) hides it", async () => {
    const clock = new VirtualClock();
    const api = new ClockedApi(clock, stalling(1000, 5000));
    const shard = spec(
      plan({ rate_per_second: 50, duration_seconds: 20 }, { maxInFlight: 2, maxLatenessMs: 5000 }),
      clock,
    );
    const done = await clock.run(rig(shard, api, clock).pump.run(ShardPump.initialState(shard)));
    expect(Histogram.from(done.figures.service).percentile(95)).toBeLessThan(
      Histogram.from(done.figures.latency).percentile(95),
    );
  });
});

describe("stopping", () => {
  it("no order leaves after the stop; the answers in flight are still counted", async () => {
    const clock = new VirtualClock();
    const api = new ClockedApi(clock, () => 300);
    const shard = spec(plan({ rate_per_second: 10, duration_seconds: 60 }), clock);
    const { pump, stop } = rig(shard, api, clock);
    const running = pump.run(ShardPump.initialState(shard));
    const stopper = clock.sleep(2050).then(stop);
    const done = await clock.run(Promise.all([running, stopper]).then(([state]) => state));
    expect(done.status).toBe("stopped");
    expect(api.posts.length).toBe(21);
    expect(done.figures.answered).toBe(21);
    expect(api.posts.every((p) => p.at - shard.starts_at_ms <= 2050)).toBe(true);
  });
});
