import { describe, expect, it } from "vitest";
import type { CapacitySearch } from "../../src/runs/capacity-schemas";
import { QueueApi, withSearchDesk } from "../helpers/capacity-rig";
import { value } from "../helpers/results";
import { ClockedApi } from "../helpers/run-fakes";
import { VirtualClock } from "../helpers/virtual-clock";

// A capacity search end to end on the virtual clock: real traffic runs (the
// pump, the coordinator, the verdict) against a simulated order API of known
// capacity, driven a second at a time as the account object's alarms would.

const P99_UNDER_500 = [
  { metric: "p99_ms" as const, op: "<" as const, value: 500, abort_on_fail: false, grace_seconds: 0 },
];

async function search(
  clock: VirtualClock,
  api: ClockedApi,
  request: { lowest_rate: number; highest_rate: number; step_seconds?: number },
): Promise<CapacitySearch> {
  return withSearchDesk(clock, api, async ({ searches, driveSearch }) => {
    const started = value(
      await searches.start("Ada", { objective: P99_UNDER_500, mode: "seeded", step_seconds: 10, ...request }),
    );
    await driveSearch(started.search_id);
    return value(searches.get(started.search_id));
  });
}

describe("against a target of 80 orders a second (4 at once, 50 ms each)", () => {
  it("finds the knee within the tolerance: doubling to the first fail, halving the interval, then one longer step at the best rate", async () => {
    const clock = new VirtualClock();
    const found = await search(clock, new QueueApi(clock), { lowest_rate: 10, highest_rate: 1000 });
    expect(found.status).toBe("completed");
    expect(found.outcome).toBe("found");
    expect(found.steps.map((s) => [s.phase, s.rate_per_second, s.verdict])).toEqual([
      ["grow", 10, "passed"],
      ["grow", 20, "passed"],
      ["grow", 40, "passed"],
      ["grow", 80, "passed"],
      ["grow", 160, "failed"],
      ["narrow", 120, "failed"],
      ["narrow", 100, "failed"],
      ["narrow", 90, "failed"],
      ["narrow", 85, "failed"],
      ["confirm", 80, "passed"],
    ]);
    expect(found.highest_passing_rate).toBe(80);
    expect(found.lowest_failing_rate).toBe(85);
    // The true capacity lies in the answer's interval, and the interval is within the tolerance.
    expect(found.highest_passing_rate ?? 0).toBeLessThanOrEqual(80);
    expect(found.lowest_failing_rate ?? 0).toBeGreaterThan(80);
    expect((found.lowest_failing_rate ?? 0) - (found.highest_passing_rate ?? 0)).toBeLessThanOrEqual(0.1 * 80);
    expect(found.steps.at(-1)?.duration_seconds).toBe(30);
    expect(found.broke_first).toBe("p99_ms < 500");
    expect(found.answer).toMatch(
      /^The order API holds 80 orders\/s with p99 under 500 ms; at 85 orders\/s p99 reached \d+ ms\.$/,
    );
    // Over capacity, the figures say so: p99 past the objective, and at 160/s a lower bound (orders dropped).
    const at160 = found.steps[4];
    expect(at160?.lower_bounds).toContain("p99_ms");
    expect(at160?.dropped_rate).toBeGreaterThan(0.3);
    expect(found.steps[0]).toMatchObject({ status: "completed", error_rate: 0, dropped_rate: 0, lower_bounds: [] });
  });

  it("says the knee is above the cap when even highest_rate meets the objective", async () => {
    const clock = new VirtualClock();
    const above = await search(clock, new QueueApi(clock), { lowest_rate: 10, highest_rate: 60 });
    expect(above.steps.map((s) => [s.phase, s.rate_per_second])).toEqual([
      ["grow", 10],
      ["grow", 20],
      ["grow", 40],
      ["grow", 60],
      ["confirm", 60],
    ]);
    expect(above).toMatchObject({
      status: "completed",
      outcome: "above_cap",
      highest_passing_rate: 60,
      lowest_failing_rate: null,
    });
    expect(above.answer).toContain("its knee is above that and was not found");
    expect(above.advice).toContain("highest_rate 120");
  });

  it("says the target does not hold even the lowest rate when the first step fails", async () => {
    const clock = new VirtualClock();
    const below = await search(clock, new QueueApi(clock), { lowest_rate: 100, highest_rate: 400, step_seconds: 5 });
    expect(below.steps.map((s) => s.rate_per_second)).toEqual([100]);
    expect(below).toMatchObject({ outcome: "below_lowest", highest_passing_rate: null, lowest_failing_rate: 100 });
    expect(below.answer).toMatch(
      /^The order API does not hold even 100 orders\/s, the lowest rate asked for, with p99 under 500 ms: at 100 orders\/s p99 reached/,
    );
  });
});

describe("what a step cannot say about the target", () => {
  it("a step where the generator was the limit ends the search inconclusive, naming the generator and what to change", async () => {
    const clock = new VirtualClock();
    clock.stallAt(clock.now() + 5_000, 1_100);
    const stalled = await search(clock, new ClockedApi(clock), { lowest_rate: 20, highest_rate: 200 });
    expect(stalled.status).toBe("inconclusive");
    expect(stalled.steps).toHaveLength(1);
    expect(stalled.steps[0]?.verdict).toBe("inconclusive");
    expect(stalled.problem).toMatch(/^at 20 orders\/s the generator, not the target, was the limit/);
    expect(stalled.answer).toMatch(/^Inconclusive: at 20 orders\/s the generator, not the order API, was the limit/);
    expect(stalled.advice).toContain("`npm run dev -- --var RUN_SHARD_RATE:10`");
    expect(stalled.advice).toContain("lowest_rate 10");
  });

  it("stopping a search stops its step's run and keeps what the finished steps showed", async () => {
    const clock = new VirtualClock();
    const api = new ClockedApi(clock);
    const stopped = await withSearchDesk(clock, api, async ({ searches, driveSearch, store }) => {
      const started = value(
        await searches.start("Ada", {
          objective: P99_UNDER_500,
          mode: "seeded",
          lowest_rate: 10,
          highest_rate: 100,
          step_seconds: 10,
        }),
      );
      await driveSearch(started.search_id, 20);
      const stoppedNow = value(await searches.stop(started.search_id, "Ada"));
      const step = stoppedNow.steps.at(-1);
      expect(store.get(step?.run_id ?? "")?.status).toBe("stopped");
      return stoppedNow;
    });
    expect(stopped.status).toBe("stopped");
    expect(stopped.problem).toBe("stopped by Ada");
    expect(stopped.steps[0]).toMatchObject({ rate_per_second: 10, verdict: "passed" });
    expect(stopped.answer).toMatch(
      /^Stopped before the end, so no knee was found: 10 orders\/s met p99 under 500 ms\.$/,
    );
  });
});

describe("a stop while a step's run is starting", () => {
  it("ends the search and the run it had just started: nothing of the search is left sending", async () => {
    const clock = new VirtualClock();
    let reached: () => void = () => undefined;
    const atGate = new Promise<void>((resolve) => {
      reached = resolve;
    });
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    await withSearchDesk(
      clock,
      new QueueApi(clock),
      async ({ searches, searchStore, store }) => {
        const starting = searches.start("Ada", {
          objective: P99_UNDER_500,
          mode: "seeded",
          step_seconds: 10,
          lowest_rate: 10,
          highest_rate: 100,
        });
        await atGate;
        const searchId = searchStore.running()[0]?.search_id ?? "";
        expect(store.running()).toHaveLength(1);
        value(await searches.stop(searchId, "Bo"));
        release();
        const started = value(await starting);
        expect(started.status).toBe("stopped");
        expect(store.running()).toEqual([]);
        expect(started.steps.map((step) => step.status)).toEqual(["stopped"]);
      },
      {},
      async () => {
        reached();
        await gate;
      },
    );
  });
});
