import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { getAgentByName } from "agents";
import { describe, expect, it } from "vitest";
import { TASK_TTL_MS, TaskStore, UNKNOWN_TASK_MESSAGE } from "../../src/account/task-store";
import { value } from "../helpers/results";
import { simulateRestart } from "../helpers/simulated-restart";
import { freshSeed } from "../helpers/synthetic";

// MCP tasks as the account's object keeps them: a handle on a run, owned by the
// caller that started it, in the object's SQLite. Another caller's id reads like
// an id that never existed; a restart of the object leaves the task as it was;
// tasks/cancel stops the run through the stop tools' path.

const ACME = { account: "acme", id: "ada-ops", operator: "Ada Ops (acme, local dev)" };
/** Same account, another credential's person. */
const OTHER = { account: "acme", id: "someone-else", operator: "Someone Else (acme)" };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

async function agent() {
  return getAgentByName(env.ACCOUNT_AGENT, "acme");
}

async function stopAll(): Promise<void> {
  const stub = await agent();
  for (const run of value(await stub.recentRuns(ACME)))
    if (run.status === "running") await stub.stopTrafficRun(ACME, run.run_id);
}

const LONG_RUN = { rate_per_second: 1, duration_seconds: 600, mode: "seeded" as const };

describe("a traffic run started as a task", () => {
  it("is a task with an unguessable id that only its starter can read", async () => {
    await stopAll();
    const stub = await agent();
    const { task, run } = value(await stub.startTrafficRunTask(ACME, { ...LONG_RUN, seed: freshSeed() }));
    expect(task.task_id).toMatch(UUID);
    expect(task).toMatchObject({ kind: "traffic_run", subject_id: run.run_id, cancelled: false });
    expect(task.expires_ms - task.created_ms).toBe(TASK_TTL_MS);
    expect(value(await stub.getTask(ACME, task.task_id))).toEqual(task);

    const foreign = await stub.getTask(OTHER, task.task_id);
    const unknown = await stub.getTask(ACME, crypto.randomUUID());
    expect(foreign).toEqual({ ok: false, error: { code: "not_found", message: UNKNOWN_TASK_MESSAGE } });
    expect(unknown).toEqual(foreign);
    // Cancelling someone else's task is the same unknown id, and leaves the run going.
    expect(await stub.cancelTask(OTHER, task.task_id)).toEqual(foreign);
    expect(value(await stub.getTrafficRun(ACME, run.run_id)).status).toBe("running");
    await stub.stopTrafficRun(ACME, run.run_id);
  });

  it("tasks/cancel stops the run as stop_traffic_run does, once; an ended run is left as it is", async () => {
    await stopAll();
    const stub = await agent();
    const { task, run } = value(await stub.startTrafficRunTask(ACME, { ...LONG_RUN, seed: freshSeed() }));
    expect(value(await stub.cancelTask(ACME, task.task_id)).cancelled).toBe(true);
    expect(value(await stub.getTrafficRun(ACME, run.run_id)).status).toBe("stopped");
    expect(value(await stub.cancelTask(ACME, task.task_id)).cancelled).toBe(true);

    const other = value(await stub.startTrafficRunTask(ACME, { ...LONG_RUN, seed: freshSeed() }));
    await stub.stopTrafficRun(ACME, other.run.run_id);
    // The run ended before the cancel: the task is not marked cancelled, its run's own end stands.
    expect(value(await stub.cancelTask(ACME, other.task.task_id)).cancelled).toBe(false);
  });

  it("is still there, with its run, after the object restarts", async () => {
    await stopAll();
    const stub = await agent();
    const { task, run } = value(await stub.startTrafficRunTask(ACME, { ...LONG_RUN, seed: freshSeed() }));
    await simulateRestart(stub);
    const again = await agent();
    expect(value(await again.getTask(ACME, task.task_id))).toEqual(task);
    expect(value(await again.cancelTask(ACME, task.task_id)).cancelled).toBe(true);
    expect(value(await again.getTrafficRun(ACME, run.run_id)).status).toBe("stopped");
  });
});

describe("a task's lifetime", () => {
  it("reads as unknown once its TTL has passed, and is dropped at the next start", async () => {
    const stub = await getAgentByName(env.ACCOUNT_AGENT, `tasks-ttl-${crypto.randomUUID()}`);
    await runInDurableObject(stub, (_instance, state) => {
      let now = 1_000_000;
      const tasks = new TaskStore(state.storage.sql, () => now);
      const task = tasks.create("ada-ops", "traffic_run", "R-1");
      now += TASK_TTL_MS - 1;
      expect(tasks.get("ada-ops", task.task_id).ok).toBe(true);
      now += 1;
      expect(tasks.get("ada-ops", task.task_id)).toEqual({
        ok: false,
        error: { code: "not_found", message: UNKNOWN_TASK_MESSAGE },
      });
      tasks.create("ada-ops", "traffic_run", "R-2");
      const left = state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM mcp_tasks").one().n;
      expect(left).toBe(1);
    });
  });
});
