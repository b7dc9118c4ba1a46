import { describe, expect, it } from "vitest";
import { ShardPump } from "../../src/runs/pump";
import { ClockedApi, plan, rig, spec } from "../helpers/run-fakes";
import { VirtualClock } from "../helpers/virtual-clock";

// The pump sleeps until its next order is due, an answer frees a slot, or its
// next checkpoint. An answer that wakes it first must cancel that sleep: an
// isolate holds at most 10,000 timers, and a run held at its in-flight cap is
// woken by every answer (a bench run died of it, QuotaExceededError).

describe("the pump's timers", () => {
  it("no sleep outlives the wait it was for: a run at its in-flight cap holds about one timer per request in flight", async () => {
    const clock = new VirtualClock();
    // 4 slots and 100 ms per answer: the cap is reached at once, and 40 answers a second wake the pump.
    const api = new ClockedApi(clock, () => 100);
    let most = 0;
    const sampling = {
      health: () => api.health(),
      postOrder: (...args: Parameters<ClockedApi["postOrder"]>) => {
        most = Math.max(most, clock.pendingTimers);
        return api.postOrder(...args);
      },
    };
    const shard = spec(plan({ rate_per_second: 100, duration_seconds: 5 }, { maxInFlight: 4 }), clock);
    const done = await clock.run(rig(shard, sampling, clock).pump.run(ShardPump.initialState(shard)));
    expect(done.figures.answered).toBeGreaterThan(150);
    // The answers' own timers (one per request in flight) and the pump's one sleep.
    expect(most).toBeLessThanOrEqual(4 + 2);
  });
});
