import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { getAgentByName } from "agents";
import { describe, expect, it } from "vitest";
import type { CapacitySearch } from "../../src/runs/capacity-schemas";
import { value } from "../helpers/results";
import { simulateRestart } from "../helpers/simulated-restart";

// Capacity searches in the account's real object, its ticks called as its
// alarm would call them, never waited for on real time: a search goes on
// after its object is reset, a lost tick is scheduled again on wake, and a
// tick that cannot go on ends the search instead of letting it hold the
// account's traffic. (The search itself is tested on a virtual
// clock in test/runs/capacity-search.test.ts.)

const ACME = { account: "acme", id: "ada-ops", operator: "Ada Ops (acme, local dev)" };
const OBJECTIVE = [
  { metric: "p99_ms" as const, op: "<" as const, value: 2000, abort_on_fail: false, grace_seconds: 0 },
];
/** Two 5-second steps at most before the confirm: 20/s, then 40/s. */
const SEARCH = { objective: OBJECTIVE, lowest_rate: 20, highest_rate: 40, step_seconds: 5, mode: "seeded" as const };

async function acme() {
  return getAgentByName(env.ACCOUNT_AGENT, "acme");
}

async function freshStart(request = SEARCH): Promise<CapacitySearch> {
  const stub = await acme();
  for (const run of value(await stub.recentRuns(ACME)))
    if (run.status === "running") await stub.stopTrafficRun(ACME, run.run_id);
  return value(await stub.startCapacitySearch(ACME, request));
}

describe("a capacity search in the account's object", () => {
  it("survives its object being reset: the new instance finds the search, its step and its next tick, and a tick goes on", async () => {
    // A minute-long step: however slow the machine, it is still sending when the tick below reads it.
    const search = await freshStart({ ...SEARCH, step_seconds: 60 });
    const stub = await acme();
    await simulateRestart(stub);
    // No waiting on the step's real run: what a reset could lose is storage and the alarm, both read here at once.
    // (Folding a settled step in and pausing before the next is tested on the virtual clock.)
    const after = await runInDurableObject(await acme(), async (instance) => {
      const ticking = (await instance.listSchedules()).some(
        (s) => s.callback === "searchTick" && (s.payload as { searchId?: string }).searchId === search.search_id,
      );
      // The tick its alarm would run: the step's run has not settled yet, so it looks again later.
      await instance.searchTick({ searchId: search.search_id });
      return { ticking, stillTicking: (await instance.listSchedules()).some((s) => s.callback === "searchTick") };
    });
    const next = value(await (await acme()).getCapacitySearch(ACME, search.search_id));
    await (await acme()).stopCapacitySearch(ACME, search.search_id);
    expect(after).toEqual({ ticking: true, stillTicking: true });
    expect(next.status).toBe("running");
    expect(next.steps.map((s) => [s.phase, s.rate_per_second])).toEqual([["grow", 20]]);
    expect(next.steps[0]?.run_id).toBe(search.steps[0]?.run_id);
  });

  it("a running search whose tick was lost gets one again on wake", async () => {
    const search = await freshStart();
    const scheduled = await runInDurableObject(await acme(), async (instance) => {
      for (const schedule of await instance.listSchedules()) await instance.cancelSchedule(schedule.id);
      await instance.onStart();
      return (await instance.listSchedules()).some(
        (s) => s.callback === "searchTick" && (s.payload as { searchId?: string }).searchId === search.search_id,
      );
    });
    await (await acme()).stopCapacitySearch(ACME, search.search_id);
    expect(scheduled).toBe(true);
  });

  it("a tick that cannot go on ends the search failed, saying why, and frees the account's traffic", async () => {
    const search = await freshStart();
    const stub = await acme();
    await runInDurableObject(stub, async (instance) => {
      const holder = instance as unknown as { env: Env };
      const original = holder.env;
      holder.env = { ...original, MAX_RUN_RATE: "fast" } as Env;
      try {
        await instance.searchTick({ searchId: search.search_id });
      } finally {
        holder.env = original;
      }
    });
    const failed = value(await stub.getCapacitySearch(ACME, search.search_id));
    expect(failed.status).toBe("failed");
    expect(failed.problem).toMatch(
      /^the server's configuration is not valid, so the search cannot go on \(configuration error: MAX_RUN_RATE.*\); fix it, then start the search again$/,
    );
    for (const step of failed.steps) await stub.stopTrafficRun(ACME, step.run_id);
    const again = value(await stub.startCapacitySearch(ACME, SEARCH));
    await stub.stopCapacitySearch(ACME, again.search_id);
    expect(again.status).toBe("running");
  });
});
