import { describe, expect, it } from "vitest";
import { value } from "../helpers/results";
import { withRunCoordinator } from "../helpers/run-coordinator";
import { ClockedApi } from "../helpers/run-fakes";
import { VirtualClock } from "../helpers/virtual-clock";

// What the coordinator of a run names as its limit when orders were dropped:
// the target, when it slowed until the requests in flight filled up, or the
// generator, when its timers came late with little in flight.

describe("what limited the run", () => {
  it("a shard that could not keep up while another saturated the target is named apart", async () => {
    const clock = new VirtualClock();
    const slow = new ClockedApi(clock, () => 3000);
    const fast = new ClockedApi(clock);
    const summary = await withRunCoordinator(
      clock,
      (shard) => (shard === 0 ? slow : fast),
      async ({ coordinator, drive }) => {
        const started = value(
          await coordinator.start("Ada", { mode: "seeded", rate_per_second: 40, duration_seconds: 5 }),
        );
        await drive(started.run_id);
        return value(coordinator.get(started.run_id));
      },
      { shardRate: 20, maxInFlight: 5, maxLatenessMs: 100 },
    );
    // Only the shard behind the slow target dropped: the target, not the generator, held it back.
    expect(summary.limits.some((l) => l.startsWith("the target was the limit"))).toBe(true);
    expect(summary.limits.some((l) => l.startsWith("the generator, not the target"))).toBe(false);
  });

  it("a generator whose timers come late (a busy isolate) drops orders with little in flight: the generator is named as the limit", async () => {
    // Every sleep overshoots by 1.5 s, as when the generator's thread is busy with other work.
    class BusyClock extends VirtualClock {
      override sleep(ms: number): Promise<void> {
        return super.sleep(ms + 1500);
      }
    }
    const clock = new BusyClock();
    const api = new ClockedApi(clock);
    const summary = await withRunCoordinator(
      clock,
      () => api,
      async ({ coordinator, drive }) => {
        const started = value(
          await coordinator.start("Ada", { mode: "seeded", rate_per_second: 20, duration_seconds: 10 }),
        );
        await drive(started.run_id);
        return value(coordinator.get(started.run_id));
      },
    );
    expect(summary.dropped).toBeGreaterThan(0);
    // Changed with issue 39: the generator's drops are its own, and the verdict is inconclusive instead of failing the
    // target.
    expect(summary.limits[0]).toMatch(
      /^the generator, not the target, was the limit: it dropped \d+ orders while request slots were free and handed orders to fetch late by its own delay \(p99 [\d.]+ ms, over the 100 ms bound/,
    );
    expect(summary.generator).toMatchObject({ limited: true, dropped: summary.dropped });
    expect(summary.verdict.result).toBe("inconclusive");
    expect(summary.verdict.inconclusive_reason).toMatch(/RUN_SHARD_RATE/);
  });
});
