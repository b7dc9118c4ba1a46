import { describe, expect, it } from "vitest";
import { ShardPump } from "../../src/runs/pump";
import { RESUME_WINDOW_MS } from "../../src/runs/shard-resume";
import type { ShardState } from "../../src/runs/shard-state";
import { ClockedApi, plan, rig, spec } from "../helpers/run-fakes";
import { VirtualClock } from "../helpers/virtual-clock";

// A shard through restarts and outages: a resumed shard sends nothing twice,
// a target that is down pauses it, and one that stays away ends it with the
// reason.

describe("restarts", () => {
  it("resumed from an older checkpoint, it re-sends nothing twice: the target answers 200 and each order is counted once", async () => {
    const clock = new VirtualClock();
    const api = new ClockedApi(clock, () => 150);
    const shard = spec(plan({ rate_per_second: 10, duration_seconds: 5 }), clock);
    const before = rig(shard, api, clock);
    // The object dies 2.5 s in: its last checkpoint is from 2 s, with orders in flight.
    const lost = before.pump.run(ShardPump.initialState(shard));
    await clock.run(clock.sleep(2500).then(before.stop));
    const checkpoint = before.checkpoints.filter((c) => c.status === "running").at(-1) as ShardState;
    expect(checkpoint.cursor.in_flight.length).toBeGreaterThan(0);
    await clock.run(lost);

    clock.advance(3000);
    const after = rig(shard, api, clock);
    const done = await clock.run(after.pump.run(checkpoint));
    expect(done.status).toBe("completed");
    expect(done.figures.answered).toBe(50);
    expect(api.stored.size).toBe(50);
    expect((done.figures.status_counts["200"] ?? 0) + (done.figures.status_counts["201"] ?? 0)).toBe(50);
    expect(done.figures.status_counts["200"]).toBeGreaterThan(0);
  });

  it("after downtime the schedule moves on instead of bursting: nothing is dropped", async () => {
    const clock = new VirtualClock();
    const api = new ClockedApi(clock);
    const shard = spec(plan({ rate_per_second: 10, duration_seconds: 30 }), clock);
    const first = rig(shard, api, clock);
    const lost = first.pump.run(ShardPump.initialState(shard));
    await clock.run(clock.sleep(1500).then(first.stop));
    await clock.run(lost);
    const checkpoint = first.checkpoints.find((c) => c.status === "running") as ShardState;
    clock.advance(60_000);
    const resumed = await clock.run(rig(shard, api, clock).pump.run(checkpoint));
    expect(resumed.figures.dropped).toBe(0);
    expect(resumed.figures.answered).toBe(300);
  });

  it("after downtime longer than the resume window it ends interrupted and says what was sent", async () => {
    const clock = new VirtualClock();
    const api = new ClockedApi(clock);
    const shard = spec(plan({ rate_per_second: 10, duration_seconds: 60 }), clock);
    const first = rig(shard, api, clock);
    const lost = first.pump.run(ShardPump.initialState(shard));
    await clock.run(clock.sleep(1500).then(first.stop));
    await clock.run(lost);
    const checkpoint = first.checkpoints.find((c) => c.status === "running") as ShardState;
    clock.advance(RESUME_WINDOW_MS + 60_000);
    const outcome = await clock.run(rig(shard, api, clock).pump.run(checkpoint));
    expect(outcome.status).toBe("interrupted");
    expect(outcome.problem).toMatch(
      /^the server was unavailable for 11 minutes while this run was going, so it was not resumed; 10 of 600 orders were sent\./,
    );
  });
});

describe("an unreachable target", () => {
  it("pauses after a second without an answer, and goes on when the target is back, without dropping what fell due meanwhile", async () => {
    const clock = new VirtualClock();
    const api = new ClockedApi(clock);
    const shard = spec(plan({ rate_per_second: 10, duration_seconds: 10 }), clock);
    const { pump, checkpoints } = rig(shard, api, clock);
    api.down = true;
    const running = pump.run(ShardPump.initialState(shard));
    const restore = clock.sleep(6000).then(() => (api.down = false));
    const done = await clock.run(Promise.all([running, restore]).then(([state]) => state));
    const paused = checkpoints.find((c) => c.cursor.paused !== null);
    expect(paused?.cursor.paused?.reason).toContain("connection refused");
    expect(done.status).toBe("completed");
    expect(done.figures.dropped).toBe(0);
    // What failed while the target was down is counted as errors; the rest was answered after the pause.
    expect(done.figures.errors).toBeGreaterThan(0);
    expect(done.figures.answered + done.figures.errors).toBe(100);
    expect(done.figures.paused_ms).toBeGreaterThanOrEqual(4000);
  });

  it("fails the run, with the reason, when the target stays away too long", async () => {
    const clock = new VirtualClock();
    const api = new ClockedApi(clock);
    api.down = true;
    const shard = spec(plan({ rate_per_second: 10, duration_seconds: 60 }), clock);
    const done = await clock.run(rig(shard, api, clock, 5).pump.run(ShardPump.initialState(shard)));
    expect(done.status).toBe("failed");
    expect(done.problem).toMatch(
      /^the order API stayed unreachable for \d+ s, so the run gave up: cannot reach the order API/,
    );
  });

  it("fails when the health check answers but no order gets through, instead of pausing and resuming forever", async () => {
    const clock = new VirtualClock();
    const api = new ClockedApi(clock);
    api.postsDown = true;
    const shard = spec(plan({ rate_per_second: 10, duration_seconds: 60 }), clock);
    const { pump, checkpoints } = rig(shard, api, clock, 5);
    const done = await clock.run(pump.run(ShardPump.initialState(shard)));
    expect(checkpoints.filter((c) => c.cursor.paused !== null).length).toBeGreaterThan(1);
    expect(done.status).toBe("failed");
    expect(done.problem).toMatch(
      /^no order reached the order API for [5-9] s, although it answered its health check, so the run gave up: cannot reach the order API/,
    );
    expect(done.figures.answered).toBe(0);
  });
});

describe("a restart before the first checkpoint", () => {
  it("goes on from the start of the schedule instead of dropping every order that fell due while it was down", async () => {
    const clock = new VirtualClock();
    const api = new ClockedApi(clock);
    const shard = spec(plan({ rate_per_second: 10, duration_seconds: 3 }), clock);
    clock.advance(6000);
    const done = await clock.run(rig(shard, api, clock).pump.run(ShardPump.initialState(shard)));
    expect(done.figures).toMatchObject({ answered: 30, dropped: 0 });
  });
});

describe("handing over between invocations", () => {
  it("stops sending at the hand-over, lets what is in flight come back, and the next invocation goes on: the plan is met exactly, nothing dropped or sent twice", async () => {
    const clock = new VirtualClock();
    const api = new ClockedApi(clock, () => 120);
    const shard = spec(plan({ rate_per_second: 10, duration_seconds: 6 }), clock);
    let state = ShardPump.initialState(shard);
    let invocations = 0;
    while (state.status === "running" && invocations < 10) {
      invocations++;
      state = await clock.run(rig(shard, api, clock).pump.run(state, clock.now() + 2000));
      expect(state.cursor.in_flight).toEqual([]);
    }
    expect(invocations).toBeGreaterThanOrEqual(3);
    expect(state.status).toBe("completed");
    expect(state.figures).toMatchObject({ answered: 60, dropped: 0, status_counts: { "201": 60 } });
    expect(new Set(api.posts.map((p) => p.id)).size).toBe(60);
    expect(api.posts).toHaveLength(60);
  });
});
