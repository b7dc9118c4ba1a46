import { describe, expect, it } from "vitest";
import { RESUME_WINDOW_MS } from "../../src/synth/traffic-run";
import { FakeApi, harness, plan, runToEnd } from "../helpers/synth-fakes";

// A traffic run through restarts and outages, tick by tick on a clock the test
// moves: resumed runs send nothing twice, short outages pause the run, long
// ones end it with the reason.

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
