import { getAgentByName } from "agents";
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { newRunId } from "../../src/account/ids";
import { CHART_ROWS, RunStore } from "../../src/account/run-store";
import { migrateAccountStorage } from "../../src/account/storage-schema";
import { planRun } from "../../src/synth/run-plan";
import { CHART_POINTS, type RunInterval } from "../../src/synth/run-schemas";
import { TrafficRunner } from "../../src/synth/traffic-run";
import { value } from "../helpers/results";

// The run page refreshes every 2 s while a run is live. What it reads must not
// grow with the run: the chart is summed per bucket of seconds as the run goes,
// and the page reads those buckets, never every interval.

const APPROVER = { account: "acme", approver: "Avery (acme, local dev)" };
const ACME = { account: "acme", operator: "Ada Ops (acme, local dev)" };


/** A run of `durationSeconds` that has already ended, so no alarm and no slot are involved. */
function storeEndedRun(store: RunStore, durationSeconds: number): string {
  const plan = planRun({ rate_per_second: 10, duration_seconds: durationSeconds, mode: "seeded", ramp_seconds: 0 }, 7, { maxRate: 50, maxSeconds: 900, maxOrders: 20_000 });
  if (!plan.ok) throw new Error(plan.error.message);
  const state = new TrafficRunner({ now: () => Date.now(), newRunId, concurrency: 4, maxPauseSeconds: 60 }).newState(plan.value, ACME.operator);
  store.insert(state);
  store.fail(state.summary.run_id, "ended by the test", new Date());
  return state.summary.run_id;
}

function second(at: number, p95 = 8): RunInterval {
  return { at_second: at, sent: 10, accepted: 9, rejected: 1, latency_p50_ms: 5, latency_p95_ms: p95 };
}

describe("the run page's read", () => {
  it("is bounded however long the run: at most CHART_POINTS buckets for a planned run, with a spike kept", async () => {
    const stub = await getAgentByName(env.ACCOUNT_AGENT, "acme");
    const runId = await runInDurableObject(stub, (_instance, state) => {
      const store = new RunStore(state.storage.sql);
      const id = storeEndedRun(store, 900);
      for (let at = 1; at <= 900; at++) store.addInterval(id, second(at, at === 450 ? 999 : 8), 900);
      return id;
    });
    const page = value(await stub.runForApprover(APPROVER, runId));
    expect(page.intervals.length).toBeLessThanOrEqual(CHART_POINTS);
    expect(page.intervals.every((p) => p.sent === 10 && p.accepted === 9 && p.rejected === 1 && p.latency_p50_ms === 5)).toBe(true);
    expect(Math.max(...page.intervals.map((p) => p.latency_p95_ms))).toBe(999);
    // The tool answer still shows the latest intervals themselves.
    expect(value(await stub.getTrafficRun(ACME, runId)).intervals.map((i) => i.at_second)).toEqual(Array.from({ length: 30 }, (_, i) => 871 + i));
  });

  it("a run that went on far past its plan (pauses) still reads at most CHART_ROWS buckets, the latest", async () => {
    const stub = await getAgentByName(env.ACCOUNT_AGENT, "acme");
    const chart = await runInDurableObject(stub, (_instance, state) => {
      const store = new RunStore(state.storage.sql);
      const id = storeEndedRun(store, 60);
      for (let at = 1; at <= 1000; at++) store.addInterval(id, second(at), 60);
      return store.chart(id);
    });
    expect(chart).toHaveLength(CHART_ROWS);
    expect(chart.at(-1)?.at_second).toBe(1000);
  });

  it("two intervals in one bucket are averaged per interval, the median weighted by orders sent", async () => {
    const stub = await getAgentByName(env.ACCOUNT_AGENT, "acme");
    const chart = await runInDurableObject(stub, (_instance, state) => {
      const store = new RunStore(state.storage.sql);
      const id = storeEndedRun(store, 60);
      store.addInterval(id, { at_second: 3.1, sent: 3, accepted: 3, rejected: 0, latency_p50_ms: 10, latency_p95_ms: 12 }, 60);
      store.addInterval(id, { at_second: 3.9, sent: 1, accepted: 0, rejected: 1, latency_p50_ms: 50, latency_p95_ms: 70 }, 60);
      return store.chart(id);
    });
    expect(chart).toEqual([{ at_second: 3.5, sent: 2, accepted: 1.5, rejected: 0.5, latency_p50_ms: 20, latency_p95_ms: 70 }]);
  });

  it("runs stored before the chart existed get their chart from their intervals when the storage is migrated", async () => {
    const stub = await getAgentByName(env.ACCOUNT_AGENT, "chart-migration-probe");
    const chart = await runInDurableObject(stub, (_instance, state) => {
      const sql = state.storage.sql;
      const store = new RunStore(sql);
      const id = storeEndedRun(store, 900);
      // Back to the schema before step 5, with two intervals stored as that version stored them.
      sql.exec("DROP TABLE run_chart");
      sql.exec("UPDATE account_schema SET version = 4");
      for (const [seq, at] of [[1, 1.2], [2, 2.8]] as const) {
        sql.exec("INSERT INTO run_intervals (run_id, seq, body) VALUES (?, ?, ?)", id, seq, JSON.stringify(second(at, at * 10)));
      }
      migrateAccountStorage(state.storage);
      return store.chart(id);
    });
    // A 900 s run has 4-second buckets: both fall in the first.
    expect(chart).toEqual([{ at_second: 2, sent: 10, accepted: 9, rejected: 1, latency_p50_ms: 5, latency_p95_ms: 28 }]);
  });
});
