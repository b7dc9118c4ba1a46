import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { getAgentByName } from "agents";
import { describe, expect, it } from "vitest";
import type { CapacitySearch } from "../../src/runs/capacity-schemas";
import { value } from "../helpers/results";
import { simulateRestart } from "../helpers/simulated-restart";
import { waitFor } from "../helpers/wait-for";

// Capacity searches in the account's real object, driven by its alarms: a
// search goes on after its object is reset, a lost tick is scheduled again
// on wake, and a tick that cannot go on ends the search instead of letting
// it hold the account's traffic. (The search itself is tested on a virtual
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

async function freshStart(): Promise<CapacitySearch> {
  const stub = await acme();
  for (const run of value(await stub.recentRuns(ACME)))
    if (run.status === "running") await stub.stopTrafficRun(ACME, run.run_id);
  return value(await stub.startCapacitySearch(ACME, SEARCH));
}

describe("a capacity search in the account's object", () => {
  it("survives its object being reset: its alarm folds the first step in and starts the next after the pause", async () => {
    const search = await freshStart();
    const stub = await acme();
    await simulateRestart(stub);
    const next = await waitFor(
      async () => value(await (await acme()).getCapacitySearch(ACME, search.search_id)),
      (s) => s.steps.length >= 2 || s.status !== "running",
      30_000,
    );
    await (await acme()).stopCapacitySearch(ACME, search.search_id);
    expect(next.status).toBe("running");
    expect(next.steps.map((s) => [s.phase, s.rate_per_second])).toEqual([
      ["grow", 20],
      ["grow", 40],
    ]);
    expect(next.steps[0]).toMatchObject({ status: "completed", verdict: "passed", dropped_rate: 0 });
    expect(next.highest_passing_rate).toBe(20);
  }, 40_000);

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
