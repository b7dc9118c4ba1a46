import { describe, expect, it } from "vitest";
import { ok, type Result } from "../../src/core/errors";
import type { Health, OrderRequest } from "../../src/orders/intake-schemas";
import { unreachable, type OrderApiTarget, type PostedOrder } from "../../src/synth/order-api-target";
import { dueBy, planRun, type RunPlan, type RunRequest } from "../../src/synth/run-plan";
import { previewOrder } from "../../src/synth/target-check";
import { MAX_TICK_SECONDS, RESUME_WINDOW_MS, TrafficRunner, type RunState } from "../../src/synth/traffic-run";

// A traffic run advanced tick by tick with a clock the test moves and a fake
// target that behaves like the order API's idempotency: a request_id it has
// seen before is answered 200 and not stored again.

const CAPS = { maxRate: 50, maxSeconds: 900, maxOrders: 20_000 };
const HEALTHY: Health = { status: "ok", skus: 8, customers: 5 };

class FakeApi implements OrderApiTarget {
  readonly stored = new Set<string>();
  readonly posts: string[] = [];
  down = false;
  /** The health check answers while every order fails, as behind a broken route or a full disk. */
  postsDown = false;

  async health(): Promise<Result<Health>> {
    return this.down ? unreachable("connection refused") : ok(HEALTHY);
  }

  async postOrder(order: OrderRequest): Promise<Result<PostedOrder>> {
    if (this.down || this.postsDown) return unreachable("connection refused");
    this.posts.push(order.request_id);
    if (this.stored.has(order.request_id)) return ok({ status: 200, body: {} });
    this.stored.add(order.request_id);
    return ok({ status: 201, body: {} });
  }
}

function plan(request: Partial<RunRequest> = {}, seed = 4242): RunPlan {
  const result = planRun({ rate_per_second: 10, duration_seconds: 5, mode: "seeded", ramp_seconds: 0, ...request }, seed, CAPS);
  if (!result.ok) throw new Error(result.error.message);
  return result.value;
}

function harness(maxPauseSeconds = 10) {
  let now = Date.parse("2026-12-01T10:00:00.000Z");
  const clock = { now: () => now, advance: (ms: number) => (now += ms) };
  let runs = 0;
  const runner = (): TrafficRunner => new TrafficRunner({ now: clock.now, newRunId: () => `R-${++runs}`, concurrency: 4, maxPauseSeconds });
  return { clock, runner };
}

/** Ticks once a second until the run ends (or `limit` ticks pass). */
async function runToEnd(runner: TrafficRunner, state: RunState, api: FakeApi, advance: (ms: number) => void, limit = 100): Promise<RunState> {
  let current = state;
  for (let i = 0; i < limit && current.summary.status === "running"; i++) {
    advance(1000);
    current = (await runner.tick(current, api, () => false)).state;
  }
  return current;
}

describe("the schedule", () => {
  it("a flat rate sends rate x seconds; a ramp sends half as much while it climbs", () => {
    expect(dueBy({ rate_per_second: 10, ramp_seconds: 0, duration_seconds: 60 }, 30)).toBe(300);
    expect(dueBy({ rate_per_second: 10, ramp_seconds: 10, duration_seconds: 60 }, 10)).toBe(50);
    expect(dueBy({ rate_per_second: 10, ramp_seconds: 10, duration_seconds: 60 }, 60)).toBe(550);
    expect(dueBy({ rate_per_second: 10, ramp_seconds: 10, duration_seconds: 60 }, 600)).toBe(550);
  });

  it.each([
    [{ rate_per_second: 500 }, "rate_per_second 500 exceeds the server's MAX_RUN_RATE of 50; ask for a lower rate or raise MAX_RUN_RATE in the server environment"],
    [{ duration_seconds: 3600 }, "duration_seconds 3600 exceeds the server's MAX_RUN_SECONDS of 900; run for less time or raise MAX_RUN_SECONDS in the server environment"],
    [{ rate_per_second: 0 }, "rate_per_second must be more than 0, got 0"],
    [{ duration_seconds: 0 }, "duration_seconds must be at least 1, got 0"],
    [{ ramp_seconds: 10 }, "ramp_seconds must be between 0 and duration_seconds (5), got 10"],
  ])("refuses %j readably", (request, message) => {
    expect(planRun({ rate_per_second: 10, duration_seconds: 5, mode: "seeded", ramp_seconds: 0, ...request }, 1, CAPS)).toEqual({
      ok: false,
      error: { code: "bad_request", message },
    });
  });

  it("refuses a run over MAX_RUN_ORDERS, saying how many orders it would send", () => {
    expect(planRun({ rate_per_second: 50, duration_seconds: 900, mode: "seeded", ramp_seconds: 0 }, 1, { ...CAPS, maxOrders: 1000 })).toEqual({
      ok: false,
      error: {
        code: "bad_request",
        message: "that run would send 45000 orders, over the server's MAX_RUN_ORDERS of 1000; lower the rate or the duration, or raise MAX_RUN_ORDERS in the server environment",
      },
    });
  });
});

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

describe("restarts", () => {
  it("resumed from an older checkpoint, it re-sends nothing twice: the target answers 200 and the tally counts each order once", async () => {
    const { clock, runner } = harness();
    const api = new FakeApi();
    const before = runner();
    const start = before.newState(plan(), "Ada");
    clock.advance(1000);
    const checkpoint = (await before.tick(start, api, () => false)).state;
    clock.advance(1000);
    // This tick's sends reach the target, but the object dies before persisting them.
    await before.tick(checkpoint, api, () => false);
    expect(api.stored.size).toBe(20);

    // A fresh runner (a new instance after the restart) resumes from the checkpoint.
    const after = runner();
    const done = await runToEnd(after, checkpoint, api, clock.advance);
    expect(done.summary).toMatchObject({ status: "completed", sent: 50, accepted: 50 });
    expect(done.summary.status_counts).toEqual({ "200": 10, "201": 40 });
    expect(api.stored.size).toBe(50);
  });

  it("after a short outage the schedule shifts instead of bursting", async () => {
    const { clock, runner } = harness();
    const traffic = runner();
    const state = traffic.newState(plan({ duration_seconds: 60 }), "Ada");
    clock.advance(1000);
    const first = (await traffic.tick(state, new FakeApi(), () => false)).state;
    clock.advance(60_000);
    const outcome = await traffic.tick(first, new FakeApi(), () => false);
    expect(outcome.interval?.sent ?? 0).toBeLessThanOrEqual(10);
    expect(outcome.state.summary.status).toBe("running");
  });

  it("after downtime longer than the resume window the run ends interrupted and says what was sent", async () => {
    const { clock, runner } = harness();
    const traffic = runner();
    const state = traffic.newState(plan({ duration_seconds: 60 }), "Ada");
    clock.advance(1000);
    const first = (await traffic.tick(state, new FakeApi(), () => false)).state;
    clock.advance(RESUME_WINDOW_MS + 60_000);
    const outcome = await traffic.tick(first, new FakeApi(), () => false);
    expect(outcome.state.summary.status).toBe("interrupted");
    expect(outcome.state.summary.problem).toMatch(/^the server was unavailable for 11 minutes while this run was going, so it was not resumed; 10 of 600 orders were sent\./);
    expect(outcome.nextTickMs).toBeNull();
  });
});

describe("an unreachable target", () => {
  it("pauses the run after an interval without an answer, and resumes when the target is back", async () => {
    const { clock, runner } = harness();
    const api = new FakeApi();
    const traffic = runner();
    api.down = true;
    const state = traffic.newState(plan(), "Ada");
    clock.advance(1000);
    const paused = await traffic.tick(state, api, () => false);
    expect(paused.state.summary.paused).toEqual({ since: new Date(clock.now()).toISOString(), reason: expect.stringContaining("connection refused") });
    expect(paused.state.summary.status).toBe("running");

    api.down = false;
    clock.advance(2000);
    const resumed = await traffic.tick(paused.state, api, () => false);
    expect(resumed.state.summary.paused).toBeNull();
    expect(resumed.state.summary.sent).toBe(10);
  });

  it("fails the run, with the reason, when the target stays away too long", async () => {
    const { clock, runner } = harness(5);
    const api = new FakeApi();
    const traffic = runner();
    api.down = true;
    let state = traffic.newState(plan(), "Ada");
    clock.advance(1000);
    state = (await traffic.tick(state, api, () => false)).state;
    expect(state.summary.paused).not.toBeNull();
    for (let i = 0; i < 4 && state.summary.status === "running"; i++) {
      clock.advance(2000);
      state = (await traffic.tick(state, api, () => false)).state;
    }
    expect(state.summary.status).toBe("failed");
    expect(state.summary.problem).toMatch(/^the order API stayed unreachable for \d+ s, so the run gave up: cannot reach the order API/);
  });

  it("fails the run when the health check answers but no order gets through, instead of pausing and resuming forever", async () => {
    const { clock, runner } = harness(5);
    const api = new FakeApi();
    const traffic = runner();
    api.postsDown = true;
    let state = traffic.newState(plan({ duration_seconds: 60 }), "Ada");
    let pauses = 0;
    for (let i = 0; i < 30 && state.summary.status === "running"; i++) {
      clock.advance(2000);
      state = (await traffic.tick(state, api, () => false)).state;
      if (state.summary.paused) pauses++;
    }
    expect(pauses).toBeGreaterThan(1);
    expect(state.summary.status).toBe("failed");
    expect(state.summary.problem).toMatch(/^no order reached the order API for [5-9] s, although it answered its health check, so the run gave up: cannot reach the order API/);
    expect(state.summary.sent).toBe(0);
  });

  it("only an answered order resets that clock", async () => {
    const { clock, runner } = harness(5);
    const api = new FakeApi();
    const traffic = runner();
    let state = traffic.newState(plan({ duration_seconds: 60 }), "Ada");
    const tickFor = async (ms: number) => {
      for (let waited = 0; waited < ms && state.summary.status === "running"; waited += 1000) {
        clock.advance(1000);
        state = (await traffic.tick(state, api, () => false)).state;
      }
    };
    api.postsDown = true;
    await tickFor(4000);
    api.postsDown = false;
    await tickFor(1000);
    expect(state.summary.sent).toBeGreaterThan(0);
    api.postsDown = true;
    await tickFor(4000);
    // Eight seconds without an order in all, but never five in a row.
    expect(state.summary.status).toBe("running");
    await tickFor(4000);
    expect(state.summary.status).toBe("failed");
  });
});
