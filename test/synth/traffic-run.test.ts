import { describe, expect, it } from "vitest";
import { previewOrder } from "../../src/synth/target-check";
import { MAX_TICK_SECONDS } from "../../src/synth/traffic-run";
import { FakeApi, harness, plan, runToEnd } from "../helpers/synth-fakes";

// A traffic run advanced tick by tick with a clock the test moves and a fake
// target that behaves like the order API's idempotency: a request_id it has
// seen before is answered 200 and not stored again.

describe("running", () => {
  it("sends every planned order once, in seed order, and completes", async () => {
    const { clock, runner } = harness();
    const api = new FakeApi();
    const traffic = runner();
    const done = await runToEnd(traffic, traffic.newState(plan(), "Ada"), api, clock.advance);
    expect(done.summary).toMatchObject({ status: "completed", sent: 50, accepted: 50, rejected: 0, status_counts: { "201": 50 } });
    expect(api.posts).toHaveLength(50);
    expect(new Set(api.posts).size).toBe(50);
    // The run's first order is the one preview_order shows for its seed.
    expect(api.posts[0]).toBe(previewOrder("seeded", 4242).order.request_id);
  });

  it("the same seed and parameters send the same orders", async () => {
    const first = harness();
    const second = harness();
    const a = new FakeApi();
    const b = new FakeApi();
    await runToEnd(first.runner(), first.runner().newState(plan(), "Ada"), a, first.clock.advance);
    await runToEnd(second.runner(), second.runner().newState(plan(), "Ada"), b, second.clock.advance);
    expect([...a.stored].sort()).toEqual([...b.stored].sort());
  });

  it("keeps the first five distinct rejection reasons", async () => {
    const { clock, runner } = harness();
    const traffic = runner();
    const done = await runToEnd(traffic, traffic.newState(plan({ mode: "simple" }), "Ada"), new FakeApi(), clock.advance);
    expect(done.summary.rejection_reasons.length).toBeLessThanOrEqual(5);
    expect(new Set(done.summary.rejection_reasons).size).toBe(done.summary.rejection_reasons.length);
  });

  it("records each tick's counts and the target's latency", async () => {
    const { clock, runner } = harness();
    const traffic = runner();
    const state = traffic.newState(plan(), "Ada");
    clock.advance(1000);
    const outcome = await traffic.tick(state, new FakeApi(), () => false);
    expect(outcome.interval).toMatchObject({ sent: 10, accepted: 10, rejected: 0 });
    expect(outcome.interval?.latency_p95_ms).toBeGreaterThanOrEqual(outcome.interval?.latency_p50_ms ?? 0);
    expect(outcome.nextTickMs).toBe(clock.now() + 1000);
  });

  it("records each interval at seconds by the clock since the start, so a pause shows on the chart as a gap", async () => {
    const { clock, runner } = harness();
    const api = new FakeApi();
    const traffic = runner();
    const state = traffic.newState(plan({ duration_seconds: 60 }), "Ada");
    clock.advance(1000);
    const first = await traffic.tick(state, api, () => false);
    expect(first.interval?.at_second).toBe(1);
    api.down = true;
    clock.advance(1000);
    const paused = await traffic.tick(first.state, api, () => false);
    expect(paused.state.summary.paused).not.toBeNull();
    api.down = false;
    clock.advance(4000);
    // The schedule moved past the pause (2 s of it are due), but the chart's x is the clock's.
    const resumed = await traffic.tick(paused.state, api, () => false);
    expect(resumed.interval?.at_second).toBe(6);
  });

  it("a late tick sends at most MAX_TICK_SECONDS of the full rate; the backlog follows in later ticks", async () => {
    const { clock, runner } = harness();
    const api = new FakeApi();
    const traffic = runner();
    const state = traffic.newState(plan({ duration_seconds: 60 }), "Ada");
    // Four seconds late (a slow target, not downtime): 40 orders are due.
    clock.advance(4000);
    const late = await traffic.tick(state, api, () => false);
    expect(late.interval?.sent).toBe(10 * MAX_TICK_SECONDS);
    clock.advance(1000);
    const next = await traffic.tick(late.state, api, () => false);
    expect(next.interval?.sent).toBe(10 * MAX_TICK_SECONDS);
    expect(new Set(api.posts).size).toBe(api.posts.length);
  });

  it("a stop between sends ends the tick early", async () => {
    const { clock, runner } = harness();
    const api = new FakeApi();
    const traffic = runner();
    const state = traffic.newState(plan(), "Ada");
    clock.advance(1000);
    let asked = 0;
    await traffic.tick(state, api, () => ++asked > 3);
    // Ten were due; three sends were let through before the stop was seen.
    expect(api.posts).toHaveLength(3);
  });
});
