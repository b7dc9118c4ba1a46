import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { getAgentByName } from "agents";
import { beforeEach, describe, expect, it } from "vitest";
import type { BudgetCharge } from "../../src/account/account-calls";
import { simulateRestart } from "../helpers/simulated-restart";
import { freshSeed } from "../helpers/synthetic";
import { waitFor } from "../helpers/wait-for";

// The synthetic order budget, met in the account's object, against what an adversarial run did to it: back-to-back
// short runs and a batch right after them sent several budgets a minute (finding 2), a run or search and batches
// started together were all admitted past the budget (finding 3), and a kill -9 emptied a full minute (finding 4).

const ACME = { account: "acme", id: "ada-ops", operator: "Ada Ops (acme, local dev)" };
const PER_MINUTE = 15;
const batchOf = (orders: number): BudgetCharge => ({ ask: { kind: "batch", orders }, perMinute: PER_MINUTE });
const runAt = (ordersPerMinute: number): BudgetCharge => ({
  ask: { kind: "run", ordersPerMinute },
  perMinute: PER_MINUTE,
});
// 10 orders in 2 s: its pace is all of it (runOrdersPerMinute).
const SHORT_RUN = { rate_per_second: 5, duration_seconds: 2, mode: "simple" } as const;

const order = (count: number) => ({ count, mode: "simple" as const, seed: freshSeed() });
const agent = () => getAgentByName(env.ACCOUNT_AGENT, "acme");

beforeEach(async () => {
  const stub = await agent();
  const recent = await stub.recentRuns(ACME);
  for (const run of recent.ok ? recent.value : [])
    if (run.status === "running") await stub.stopTrafficRun(ACME, run.run_id);
  // Each test meets an empty minute; the file has a runtime of its own (ALONE_TESTS).
  await runInDurableObject(stub, (_instance, state) => {
    state.storage.sql.exec("DELETE FROM synthetic_budget");
  });
});

describe("the synthetic order budget", () => {
  it("a short run that has ended still counts what it sent: neither a second run nor a batch fits after it", async () => {
    const stub = await agent();
    const started = await stub.startTrafficRun(ACME, SHORT_RUN, runAt(10));
    if (!started.ok) throw new Error(started.error.message);
    await waitFor(
      async () => stub.trafficRunRecord(ACME, started.value.run_id),
      (run) =>
        run.ok && run.value.record.status !== "running" && run.value.record.shards.every((s) => s.status !== "running"),
      20_000,
    );
    const second = await stub.startTrafficRun(ACME, SHORT_RUN, runAt(10));
    expect(second.ok).toBe(false);
    const batch = await stub.sendOrders(ACME, order(10), undefined, batchOf(10));
    expect(!batch.ok && batch.error.message).toMatch(/^a batch of 10 orders would go over .*: 10 orders went out/);
    expect((await stub.sendOrders(ACME, order(5), undefined, batchOf(5))).ok).toBe(true);
  });

  it("a run and a batch asked for at once: checked and booked in one step, only one of them fits", async () => {
    const stub = await agent();
    const [run, batch] = await Promise.all([
      stub.startTrafficRun(ACME, SHORT_RUN, runAt(10)),
      stub.sendOrders(ACME, order(10), undefined, batchOf(10)),
    ]);
    expect([run.ok, batch.ok].filter(Boolean)).toHaveLength(1);
  });

  it("what was spent survives the object's restart", async () => {
    const stub = await agent();
    expect((await stub.sendOrders(ACME, order(10), undefined, batchOf(10))).ok).toBe(true);
    await simulateRestart(stub);
    const after = await (await agent()).sendOrders(ACME, order(10), undefined, batchOf(10));
    expect(!after.ok && after.error.code).toBe("rate_limited");
  });
});
