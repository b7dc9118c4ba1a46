import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { getAgentByName } from "agents";
import { describe, expect, it, vi } from "vitest";
import { FOREIGN_CALLER_MESSAGE } from "../../src/account/account-calls";
import { RUN_NOT_FOUND } from "../../src/runs/coordinator";
import type { RunDetail, RunSummary } from "../../src/runs/run-schemas";
import { shardName } from "../../src/runs/shard-state";
import { value } from "../helpers/results";
import { simulateRestart } from "../helpers/simulated-restart";
import { countRequestIds, expectedOrders, freshSeed } from "../helpers/synthetic";
import { waitFor } from "../helpers/wait-for";

// Traffic runs in the account's object and its RunShard objects, driven by
// their alarms: they go on after the call that started them returned, fan
// out over shards, and stop when told to. (The engine's timing is tested on
// a virtual clock in test/runs; here the objects are real.)

// These runs send on real time in real objects, and `until` reads them for up to 20 s: a test may take
// that long on a loaded machine, where the default 5 s cut the 2-second runs off before they ended.
// (Driving the shards on a virtual clock is the engine's, test/runs; here the objects are real.)
vi.setConfig({ testTimeout: 30_000 });

const ACME = { account: "acme", id: "ada-ops", operator: "Ada Ops (acme, local dev)" };
const GLOBEX = { account: "globex", id: "gus-ops", operator: "Gus Ops (globex, local dev)" };

async function agent(account: string) {
  return getAgentByName(env.ACCOUNT_AGENT, account);
}

async function until(runId: string, done: (run: RunDetail) => boolean, timeoutMs = 20_000): Promise<RunDetail> {
  const stub = await agent("acme");
  return waitFor(async () => value(await stub.getTrafficRun(ACME, runId)), done, timeoutMs);
}

/** Stops whatever acme left running, so each test starts with a free slot. */
async function stopAll(): Promise<void> {
  const stub = await agent("acme");
  for (const run of value(await stub.recentRuns(ACME))) {
    if (run.status === "running") await stub.stopTrafficRun(ACME, run.run_id);
  }
}

const ended = (run: RunDetail) => run.status !== "running";

/**
 * The run once its coordinator has read every shard's last figures: answers
 * to orders in flight at the end are counted, and no shard sends any more.
 */
async function settled(run: RunSummary): Promise<RunDetail> {
  const stub = await agent("acme");
  const { record } = await waitFor(
    async () => value(await stub.trafficRunRecord(ACME, run.run_id)),
    ({ record }) => record.shards.every((shard) => shard.status !== "running"),
  );
  expect(record.shards.map((shard) => shard.status)).not.toContain("running");
  return value(await stub.getTrafficRun(ACME, run.run_id));
}

/**
 * What the run's objects would do as time goes on, without waiting for it:
 * each shard's alarm, if it has one, and the coordinator's tick, run now.
 */
async function timePasses(run: RunSummary): Promise<void> {
  for (let shard = 0; shard < run.plan.shards; shard++)
    await runDurableObjectAlarm(env.RUN_SHARD.get(env.RUN_SHARD.idFromName(shardName("acme", run.run_id, shard))));
  await runInDurableObject(await agent("acme"), (instance) => instance.runTick({ runId: run.run_id }));
}

describe("a short run", () => {
  it("returns at once, then its shards send every planned order once and it completes with a verdict", async () => {
    await stopAll();
    const seed = freshSeed();
    const stub = await agent("acme");
    const started = value(
      await stub.startTrafficRun(ACME, { rate_per_second: 5, duration_seconds: 2, mode: "seeded", seed }),
    );
    expect(started).toMatchObject({ status: "running", sent: 0, plan: { seed, total_orders: 10, shards: 2 } });
    expect(started.run_url).toBe(`http://localhost/runs/${started.run_id}`);

    const done = await until(started.run_id, ended);
    expect(done).toMatchObject({
      status: "completed",
      sent: 10,
      accepted: 10,
      rejected: 0,
      dropped: 0,
      status_counts: { "201": 10 },
    });
    expect(done.latency.count).toBe(10);
    expect(done.verdict.result).toBe("passed");
    expect(done.intervals.reduce((sum, i) => sum + i.sent, 0)).toBe(10);
    const ids = expectedOrders("seeded", seed, 10).map((o) => o.request_id);
    expect(await countRequestIds("acme", ids)).toBe(10);
  });

  it("over three shards, the plan's total is met exactly and no order is sent twice (a second send would answer 200)", async () => {
    await stopAll();
    const seed = freshSeed();
    const stub = await agent("acme");
    const started = value(
      await stub.startTrafficRun(ACME, {
        stages: [{ duration_seconds: 2, rate_per_second: 12 }],
        start_rate: 12,
        mode: "seeded",
        seed,
      }),
    );
    expect(started.plan.shards).toBe(3);
    const done = await until(started.run_id, ended);
    expect(done).toMatchObject({ status: "completed", sent: 24, status_counts: { "201": 24 } });
    expect(
      await countRequestIds(
        "acme",
        expectedOrders("seeded", seed, 24).map((o) => o.request_id),
      ),
    ).toBe(24);
  });
});

describe("stopping", () => {
  it("is immediate and idempotent: no order leaves after the stop", async () => {
    await stopAll();
    const stub = await agent("acme");
    const seed = freshSeed();
    const started = value(
      await stub.startTrafficRun(ACME, { rate_per_second: 5, duration_seconds: 60, mode: "seeded", seed }),
    );
    await until(started.run_id, (run) => run.sent > 0);
    const stopped = value(await stub.stopTrafficRun(ACME, started.run_id));
    expect(stopped).toMatchObject({ status: "stopped", problem: "stopped by Ada Ops (acme, local dev)" });
    expect(value(await stub.stopTrafficRun(ACME, started.run_id)).status).toBe("stopped");
    // Answers in flight at the stop are still counted; then nothing moves.
    const sent = (await settled(started)).sent;
    await timePasses(started);
    expect(value(await stub.getTrafficRun(ACME, started.run_id)).sent).toBe(sent);
    expect(
      await countRequestIds(
        "acme",
        expectedOrders("seeded", seed, started.plan.total_orders).map((o) => o.request_id),
      ),
    ).toBe(sent);
  });
});

describe("one active run per account", () => {
  it("refuses a second run, naming the active one", async () => {
    await stopAll();
    const stub = await agent("acme");
    const first = value(
      await stub.startTrafficRun(ACME, { rate_per_second: 1, duration_seconds: 60, mode: "seeded", seed: freshSeed() }),
    );
    expect(
      await stub.startTrafficRun(ACME, { rate_per_second: 1, duration_seconds: 5, mode: "seeded", seed: freshSeed() }),
    ).toEqual({
      ok: false,
      error: {
        code: "conflict",
        message: `run ${first.run_id} is still running and this account allows 1 at a time (MAX_ACTIVE_RUNS); stop it with stop_traffic_run or wait for it to finish`,
      },
    });
    await stub.stopTrafficRun(ACME, first.run_id);
  });

  it("refuses a run over the caps before starting anything", async () => {
    const stub = await agent("acme");
    const before = value(await stub.recentRuns(ACME)).length;
    const refused = await stub.startTrafficRun(ACME, { rate_per_second: 5000, duration_seconds: 5, mode: "seeded" });
    expect(refused.ok).toBe(false);
    expect(value(await stub.recentRuns(ACME))).toHaveLength(before);
  });
});

describe("isolation", () => {
  it("another account can neither see, stop nor compare with a run: its own object does not know the id", async () => {
    await stopAll();
    const acme = await agent("acme");
    const globex = await agent("globex");
    const started = value(
      await acme.startTrafficRun(ACME, { rate_per_second: 1, duration_seconds: 30, mode: "seeded", seed: freshSeed() }),
    );
    const notFound = {
      ok: false,
      error: { code: "not_found", message: RUN_NOT_FOUND },
    };
    expect(await globex.getTrafficRun(GLOBEX, started.run_id)).toEqual(notFound);
    expect(await globex.stopTrafficRun(GLOBEX, started.run_id)).toEqual(notFound);
    const own = value(await globex.recentRuns(GLOBEX))[0]?.run_id ?? "R-none";
    expect(await globex.compareTrafficRuns(GLOBEX, own, started.run_id, 10)).toEqual(notFound);
    expect(value(await globex.recentRuns(GLOBEX)).map((r: RunSummary) => r.run_id)).not.toContain(started.run_id);
    expect(await acme.stopTrafficRun(GLOBEX, started.run_id)).toEqual({
      ok: false,
      error: { code: "forbidden", message: FOREIGN_CALLER_MESSAGE },
    });
    expect(value(await acme.getTrafficRun(ACME, started.run_id)).status).toBe("running");
    await acme.stopTrafficRun(ACME, started.run_id);
  });
});

describe("a restart", () => {
  it("a run survives its coordinator and its shards being reset: the alarms resume them and it completes without duplicates", async () => {
    await stopAll();
    const seed = freshSeed();
    const stub = await agent("acme");
    const started = value(
      await stub.startTrafficRun(ACME, { rate_per_second: 6, duration_seconds: 4, mode: "seeded", seed }),
    );
    await until(started.run_id, (run) => run.sent > 0);
    // Storage and alarms remain.
    for (let shard = 0; shard < started.plan.shards; shard++)
      await simulateRestart(env.RUN_SHARD.get(env.RUN_SHARD.idFromName(shardName("acme", started.run_id, shard))));
    await simulateRestart(stub);

    const done = await until(started.run_id, ended, 30_000);
    expect(done).toMatchObject({ status: "completed", sent: 24, accepted: 24 });
    expect(
      await countRequestIds(
        "acme",
        expectedOrders("seeded", seed, 24).map((o) => o.request_id),
      ),
    ).toBe(24);
  }, 40_000);
});

describe("a tick that cannot go on", () => {
  it("ends the run failed, saying why, when the configuration no longer validates, and stops its shards", async () => {
    await stopAll();
    const stub = await agent("acme");
    const started = value(
      await stub.startTrafficRun(ACME, { rate_per_second: 2, duration_seconds: 60, mode: "seeded", seed: freshSeed() }),
    );
    await runInDurableObject(stub, async (instance) => {
      const holder = instance as unknown as { env: Env };
      const original = holder.env;
      holder.env = { ...original, MAX_RUN_RATE: "fast" } as Env;
      try {
        await instance.runTick({ runId: started.run_id });
      } finally {
        holder.env = original;
      }
    });
    const run = value(await stub.getTrafficRun(ACME, started.run_id));
    expect(run).toMatchObject({ status: "failed", paused: null, current_rate: 0 });
    expect(run.problem).toMatch(
      /^the server's configuration is not valid, so the run cannot go on \(configuration error: MAX_RUN_RATE.*\); fix it, then start the run again$/,
    );
    // An answer in flight at the failure is still counted; then nothing moves.
    const sent = (await settled(started)).sent;
    await timePasses(started);
    const shard = env.RUN_SHARD.get(env.RUN_SHARD.idFromName(shardName("acme", started.run_id, 0)));
    // Stopped, or already let go once the coordinator read its last figures.
    expect((await shard.progress())?.state.status ?? "forgotten").not.toBe("running");
    expect(value(await stub.getTrafficRun(ACME, started.run_id)).sent).toBe(sent);
  });
});

describe("waking up", () => {
  it("a running run whose tick was lost gets one again", async () => {
    await stopAll();
    const stub = await agent("acme");
    const started = value(
      await stub.startTrafficRun(ACME, { rate_per_second: 1, duration_seconds: 60, mode: "seeded", seed: freshSeed() }),
    );
    const scheduled = await runInDurableObject(stub, async (instance) => {
      for (const schedule of await instance.listSchedules()) await instance.cancelSchedule(schedule.id);
      await instance.onStart();
      return (await instance.listSchedules()).some(
        (s) => s.callback === "runTick" && (s.payload as { runId?: string }).runId === started.run_id,
      );
    });
    expect(scheduled).toBe(true);
    await stopAll();
  });

  it("with nothing running, it builds no services: the wake only asks the runs table", async () => {
    const stub = await agent("wake-probe");
    const built = await runInDurableObject(stub, async (instance) => {
      await instance.onStart();
      return (instance as unknown as { built?: unknown }).built !== undefined;
    });
    expect(built).toBe(false);
  });
});
