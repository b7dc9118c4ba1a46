import { describe, expect, it } from "vitest";
import { runShard } from "../../src/account/services";
import { planRun } from "../../src/runs/plan";
import { value } from "../helpers/results";
import { withRunCoordinator } from "../helpers/run-coordinator";
import { ClockedApi, TEST_CAPS } from "../helpers/run-fakes";
import { VirtualClock } from "../helpers/virtual-clock";

// Load zones: a run may name Cloudflare locations; its shards are created
// there (a location hint, which has no effect locally), and its figures are
// given per location beside the whole. Without locations nothing changes.

describe("load zones", () => {
  it("creates each shard with its location's hint, and the per-location figures add up to the whole", async () => {
    const clock = new VirtualClock();
    const api = new ClockedApi(clock, () => 20);
    const { summary, hints } = await withRunCoordinator(
      clock,
      () => api,
      async ({ coordinator, drive, hints }) => {
        const started = value(
          await coordinator.start("Ada", {
            mode: "seeded",
            rate_per_second: 30,
            duration_seconds: 4,
            locations: ["weur", "enam", "apac"],
          }),
        );
        await drive(started.run_id);
        return { summary: value(coordinator.get(started.run_id)), hints };
      },
    );
    expect(summary.plan).toMatchObject({ shards: 3, locations: ["weur", "enam", "apac"] });
    expect([...hints.entries()].sort()).toEqual([
      [0, "weur"],
      [1, "enam"],
      [2, "apac"],
    ]);
    const zones = summary.locations ?? [];
    expect(zones.map((zone) => zone.location)).toEqual(["weur", "enam", "apac"]);
    for (const key of ["sent", "accepted", "rejected", "errors", "dropped"] as const)
      expect(zones.reduce((sum, zone) => sum + zone[key], 0)).toBe(summary[key]);
    expect(zones.reduce((sum, zone) => sum + zone.shards, 0)).toBe(summary.plan.shards);
    expect(summary.sent).toBe(120);
    expect(zones.every((zone) => zone.latency_p50_ms > 0)).toBe(true);
  });

  it("without locations nothing changes: no hint, no locations in the plan or the answer", async () => {
    const clock = new VirtualClock();
    const api = new ClockedApi(clock);
    const { summary, hints } = await withRunCoordinator(
      clock,
      () => api,
      async ({ coordinator, drive, hints }) => {
        const started = value(
          await coordinator.start("Ada", { mode: "seeded", rate_per_second: 10, duration_seconds: 2 }),
        );
        await drive(started.run_id);
        return { summary: value(coordinator.get(started.run_id)), hints };
      },
    );
    expect([...hints.values()]).toEqual([undefined]);
    expect("locations" in summary.plan).toBe(false);
    expect("locations" in summary).toBe(false);
  });

  it("the account's object asks the namespace for the shard with the location hint", () => {
    const asked: unknown[] = [];
    const namespace = {
      idFromName: (name: string) => name,
      get: (_id: unknown, options?: unknown) => {
        asked.push(options);
        return {};
      },
    };
    const env = { RUN_SHARD: namespace } as unknown as Env;
    runShard(env, "acme", "R-1", 0, "weur");
    runShard(env, "acme", "R-1", 1);
    expect(asked).toEqual([{ locationHint: "weur" }, undefined]);
  });

  it("every zone gets a shard of its own, within MAX_RUN_SHARDS", () => {
    const refused = planRun(
      { mode: "seeded", rate_per_second: 10, duration_seconds: 5, locations: ["weur", "enam", "apac"] },
      1,
      { ...TEST_CAPS, maxShards: 2 },
    );
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.error.message).toMatch(/asks for 3 locations.*MAX_RUN_SHARDS of 2/);
  });
});

describe("the run page's load zones", () => {
  it("shows each location's row beside the whole run's, and nothing for a run without locations", async () => {
    const { locationsCard } = await import("../../src/web/runs/run-sections");
    const zone = (location: "weur" | "apac", sent: number) => ({
      location,
      shards: 1,
      sent,
      accepted: sent,
      rejected: 0,
      errors: 0,
      dropped: 0,
      latency_p50_ms: 21,
      latency_p99_ms: 40,
      service_p99_ms: 30,
    });
    const run = {
      plan: { shards: 2 },
      sent: 30,
      accepted: 30,
      rejected: 0,
      errors: 0,
      dropped: 0,
      latency: { p50_ms: 21, p99_ms: 40 },
      locations: [zone("weur", 10), zone("apac", 20)],
    } as unknown as Parameters<typeof locationsCard>[0];
    const page = String(await locationsCard(run));
    expect(page).toContain("<th>weur</th>");
    expect(page).toContain("<th>apac</th>");
    expect(page).toContain("<th>whole run</th><td>2</td><td>30</td>");
    expect(String(await locationsCard({ ...run, locations: undefined }))).toBe("");
  });
});
