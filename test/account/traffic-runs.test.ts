import { getAgentByName } from "agents";
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { newRunId } from "../../src/account/ids";
import { RunStore } from "../../src/account/run-store";
import { planRun } from "../../src/synth/run-plan";
import type { RunDetail, RunSummary } from "../../src/synth/run-schemas";
import { TrafficRunner } from "../../src/synth/traffic-run";
import { countRequestIds, expectedOrders, freshSeed } from "../helpers/synthetic";
import { value } from "../helpers/results";

// Traffic runs in the account's object, driven by its alarms: they go on
// after the call that started them returned, and stop when told to.

const ACME = { account: "acme", operator: "Ada Ops (acme, local dev)" };
const GLOBEX = { account: "globex", operator: "Gus Ops (globex, local dev)" };


async function agent(account: string) {
  return getAgentByName(env.ACCOUNT_AGENT, account);
}

/** Polls the run until `done` holds or the deadline passes. */
async function waitFor(account: typeof ACME, runId: string, done: (run: RunDetail) => boolean, timeoutMs = 15_000): Promise<RunDetail> {
  const stub = await agent(account.account);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const run = value(await stub.getTrafficRun(account, runId));
    if (done(run) || Date.now() > deadline) return run;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Stops whatever acme left running, so each test starts with a free slot. */
async function stopAll(): Promise<void> {
  const stub = await agent("acme");
  for (const run of value(await stub.recentRuns(ACME))) {
    if (run.status === "running") await stub.stopTrafficRun(ACME, run.run_id);
  }
}

describe("a short run", () => {
  it("returns at once, then its alarms send every planned order and complete it", async () => {
    await stopAll();
    const seed = freshSeed();
    const stub = await agent("acme");
    const started = value(await stub.startTrafficRun(ACME, { rate_per_second: 5, duration_seconds: 2, mode: "seeded", seed, ramp_seconds: 0 }));
    expect(started).toMatchObject({ status: "running", sent: 0, plan: { seed, total_orders: 10 } });
    expect(started.run_url).toBe(`http://localhost/runs/${started.run_id}`);

    const done = await waitFor(ACME, started.run_id, (run) => run.status !== "running");
    expect(done).toMatchObject({ status: "completed", sent: 10, accepted: 10, rejected: 0, status_counts: { "201": 10 } });
    expect(done.intervals.reduce((sum, i) => sum + i.sent, 0)).toBe(10);
    const ids = expectedOrders("seeded", seed, 10).map((o) => o.request_id);
    expect(await countRequestIds("acme", ids)).toBe(10);
  });
});

describe("stopping", () => {
  it("is immediate and idempotent: no order leaves after the stop", async () => {
    await stopAll();
    const stub = await agent("acme");
    const started = value(await stub.startTrafficRun(ACME, { rate_per_second: 5, duration_seconds: 60, mode: "seeded", seed: freshSeed(), ramp_seconds: 0 }));
    await waitFor(ACME, started.run_id, (run) => run.sent > 0);
    const stopped = value(await stub.stopTrafficRun(ACME, started.run_id));
    expect(stopped).toMatchObject({ status: "stopped", problem: "stopped by Ada Ops (acme, local dev)" });
    const again = value(await stub.stopTrafficRun(ACME, started.run_id));
    expect(again.status).toBe("stopped");

    const sentAtStop = value(await stub.getTrafficRun(ACME, started.run_id)).sent;
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(value(await stub.getTrafficRun(ACME, started.run_id)).sent).toBe(sentAtStop);
  });
});

describe("one active run per account", () => {
  it("refuses a second run, naming the active one", async () => {
    await stopAll();
    const stub = await agent("acme");
    const first = value(await stub.startTrafficRun(ACME, { rate_per_second: 1, duration_seconds: 60, mode: "seeded", seed: freshSeed(), ramp_seconds: 0 }));
    const second = await stub.startTrafficRun(ACME, { rate_per_second: 1, duration_seconds: 5, mode: "seeded", seed: freshSeed(), ramp_seconds: 0 });
    expect(second).toEqual({
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
    const refused = await stub.startTrafficRun(ACME, { rate_per_second: 5000, duration_seconds: 5, mode: "seeded", ramp_seconds: 0 });
    expect(refused.ok).toBe(false);
    expect(value(await stub.recentRuns(ACME))).toHaveLength(before);
  });
});

describe("isolation", () => {
  it("another account can neither see nor stop a run: its own object does not know the id", async () => {
    await stopAll();
    const acme = await agent("acme");
    const globex = await agent("globex");
    const started = value(await acme.startTrafficRun(ACME, { rate_per_second: 1, duration_seconds: 30, mode: "seeded", seed: freshSeed(), ramp_seconds: 0 }));
    const notFound = {
      ok: false,
      error: { code: "not_found", message: "traffic run not found; runs are only visible to the account that started them (synthetic://runs lists yours)" },
    };
    expect(await globex.getTrafficRun(GLOBEX, started.run_id)).toEqual(notFound);
    expect(await globex.stopTrafficRun(GLOBEX, started.run_id)).toEqual(notFound);
    expect(value(await globex.recentRuns(GLOBEX)).map((r: RunSummary) => r.run_id)).not.toContain(started.run_id);
    // Routed to acme's object with globex's credential, the object refuses it.
    expect(await acme.stopTrafficRun(GLOBEX, started.run_id)).toEqual({
      ok: false,
      error: { code: "forbidden", message: "this credential belongs to a different account" },
    });
    expect(value(await acme.getTrafficRun(ACME, started.run_id)).status).toBe("running");
    await acme.stopTrafficRun(ACME, started.run_id);
  });
});

describe("a restart", () => {
  it("a run survives its object being reset: the alarm resumes it and it completes without duplicates", async () => {
    await stopAll();
    const seed = freshSeed();
    const stub = await agent("acme");
    const started = value(await stub.startTrafficRun(ACME, { rate_per_second: 5, duration_seconds: 3, mode: "seeded", seed, ramp_seconds: 0 }));
    await waitFor(ACME, started.run_id, (run) => run.sent > 0);
    // Throws away the instance and its memory; storage and the alarm remain.
    await runInDurableObject(stub, (_instance, state) => {
      state.abort("simulated restart");
    }).catch(() => undefined);

    const after = await agent("acme");
    const done = await waitFor(ACME, started.run_id, (run) => run.status !== "running");
    expect(done).toMatchObject({ status: "completed", sent: 15, accepted: 15 });
    const ids = expectedOrders("seeded", seed, 15).map((o) => o.request_id);
    expect(await countRequestIds("acme", ids)).toBe(15);
    expect(value(await after.recentRuns(ACME)).find((r) => r.run_id === started.run_id)?.status).toBe("completed");
  });
});

/**
 * A run stored as a tick would find it, `behindMs` into its schedule, with no
 * alarm set: only the test ticks it, so nothing else sends in between.
 */
function storeRun(sql: SqlStorage, rate: number, behindMs: number): string {
  const plan = planRun({ rate_per_second: rate, duration_seconds: 60, mode: "seeded", ramp_seconds: 0 }, freshSeed(), { maxRate: 50, maxSeconds: 900, maxOrders: 20_000 });
  if (!plan.ok) throw new Error(plan.error.message);
  const runner = new TrafficRunner({ now: () => Date.now() - behindMs, newRunId, concurrency: 4, maxPauseSeconds: 60 });
  const state = runner.newState(plan.value, ACME.operator);
  new RunStore(sql).insert(state);
  return state.summary.run_id;
}

/** Runs `body` with the object's env replaced, as a redeploy or a broken binding would. */
async function withAgentEnv<R>(instance: unknown, patch: Record<string, unknown>, body: () => Promise<R>): Promise<R> {
  const holder = instance as { env: Env };
  const original = holder.env;
  holder.env = { ...original, ...patch } as Env;
  try {
    return await body();
  } finally {
    holder.env = original;
  }
}

describe("a tick that cannot go on", () => {
  it("ends the run failed, saying why, when the configuration no longer validates; the run slot is free again", async () => {
    await stopAll();
    const stub = await agent("acme");
    const runId = await runInDurableObject(stub, async (instance, state) => {
      const id = storeRun(state.storage.sql, 5, 1500);
      await withAgentEnv(instance, { MAX_RUN_RATE: "fast" }, () => instance.runTick({ runId: id }));
      return id;
    });
    const run = value(await stub.getTrafficRun(ACME, runId));
    expect(run).toMatchObject({ status: "failed", paused: null, current_rate: 0 });
    expect(run.problem).toMatch(/^the server's configuration is not valid, so the run cannot go on \(configuration error: MAX_RUN_RATE.*\); fix it, then start the run again$/);
    expect(run.finished_at).not.toBeNull();
    const next = value(await stub.startTrafficRun(ACME, { rate_per_second: 1, duration_seconds: 5, mode: "seeded", seed: freshSeed(), ramp_seconds: 0 }));
    await stub.stopTrafficRun(ACME, next.run_id);
  });

  it("ends the run failed when the tick throws, instead of leaving it running with no next alarm", async () => {
    await stopAll();
    const stub = await agent("acme");
    // A binding that answers with something that is not a Response: postOrder throws.
    const broken = { fetch: async () => ({ status: 201 }) };
    const runId = await runInDurableObject(stub, async (instance, state) => {
      const id = storeRun(state.storage.sql, 5, 1500);
      await withAgentEnv(instance, { ORDER_API: broken }, () => instance.runTick({ runId: id }));
      return id;
    });
    const run = value(await stub.getTrafficRun(ACME, runId));
    expect(run.status).toBe("failed");
    expect(run.problem).toBe(
      "the run stopped on an unexpected error in the server; the server log has the details. Start it again with the same seed to continue: orders already sent are answered 200 and not duplicated.",
    );
    expect(value(await stub.recentRuns(ACME)).filter((r) => r.status === "running")).toEqual([]);
  });
});

describe("what a tick costs", () => {
  it("the stop check before each send reads the status column, not the whole run", async () => {
    await stopAll();
    const stub = await agent("acme");
    const { reads, sent } = await runInDurableObject(stub, async (instance, state) => {
      const sql = state.storage.sql;
      const id = storeRun(sql, 20, 1500);
      const exec = sql.exec.bind(sql);
      let stateReads = 0;
      sql.exec = ((query: string, ...bindings: unknown[]) => {
        if (/^SELECT state FROM runs/.test(query)) stateReads++;
        return exec(query, ...bindings);
      }) as typeof sql.exec;
      try {
        await instance.runTick({ runId: id });
      } finally {
        sql.exec = exec;
      }
      return { reads: stateReads, sent: new RunStore(sql).get(id)?.summary.sent ?? 0 };
    });
    // Thirty orders were due; the state is read once before the tick and once after it.
    expect(sent).toBe(30);
    expect(reads).toBe(2);
    await stopAll();
  });
});

describe("waking up", () => {
  it("a running run whose alarm was lost gets a tick again", async () => {
    await stopAll();
    const stub = await agent("acme");
    const scheduled = await runInDurableObject(stub, async (instance, state) => {
      const id = storeRun(state.storage.sql, 1, 0);
      await instance.onStart();
      return (await instance.listSchedules()).some((s) => s.callback === "runTick" && (s.payload as { runId?: string }).runId === id);
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
