import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { getAgentByName } from "agents";
import { describe, expect, it } from "vitest";
import { CHART_POINTS, type RunInterval } from "../../src/runs/run-schemas";
import { CHART_ROWS, RunStore } from "../../src/runs/run-store";
import { value } from "../helpers/results";
import { plan, runRecord } from "../helpers/run-fakes";

// The run page refreshes every 2 s while a run is live. What it reads must not
// grow with the run: the chart is summed per bucket of seconds as the run goes,
// and the page reads those buckets, never every interval.

const APPROVER = { account: "acme", id: "avery", approver: "Avery (acme, local dev)" };
const ACME = { account: "acme", id: "ada-ops", operator: "Ada Ops (acme, local dev)" };

/** A run of `durationSeconds` that has already ended, so no alarm and no slot are involved. */
function storeEndedRun(store: RunStore, durationSeconds: number): string {
  const record = runRecord(plan({ rate_per_second: 10, duration_seconds: durationSeconds }, {}, 7));
  store.insert(record);
  store.fail(record.run_id, "ended by the test", new Date());
  return record.run_id;
}

function second(at: number, p95 = 8): RunInterval {
  return {
    at_second: at,
    seconds: 1,
    planned_rate: 10,
    sent: 10,
    accepted: 9,
    rejected: 1,
    errors: 0,
    dropped: 0,
    dropped_generator: 0,
    generator_delay_ms: 2,
    in_flight: 3,
    latency_p50_ms: 5,
    latency_p95_ms: p95,
    latency_p99_ms: p95 + 1,
    service_p99_ms: 4,
  };
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
    expect(
      page.intervals.every((p) => p.sent === 10 && p.accepted === 9 && p.rejected === 1 && p.latency_p50_ms === 5),
    ).toBe(true);
    expect(Math.max(...page.intervals.map((p) => p.latency_p95_ms))).toBe(999);
    // The tool answer still shows the latest intervals themselves.
    expect(value(await stub.getTrafficRun(ACME, runId)).intervals.map((i) => i.at_second)).toEqual(
      Array.from({ length: 30 }, (_, i) => 871 + i),
    );
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
      store.addInterval(
        id,
        {
          ...second(3.1),
          seconds: 0.8,
          dropped_generator: 1,
          planned_rate: 4,
          sent: 3,
          accepted: 3,
          rejected: 0,
          dropped: 2,
          latency_p50_ms: 10,
          latency_p95_ms: 12,
          latency_p99_ms: 15,
        },
        60,
      );
      store.addInterval(
        id,
        {
          ...second(3.9),
          seconds: 1.6,
          generator_delay_ms: 40,
          planned_rate: 2,
          sent: 1,
          accepted: 0,
          rejected: 1,
          in_flight: 9,
          latency_p50_ms: 50,
          latency_p95_ms: 70,
          latency_p99_ms: 90,
        },
        60,
      );
      return store.chart(id);
    });
    expect(chart).toEqual([
      {
        at_second: 3.5,
        // The intervals' average real length: a count over it is the bucket's rate (4 orders in 2.4 s).
        seconds: 1.2,
        planned_rate: 3,
        sent: 2,
        accepted: 1.5,
        rejected: 0.5,
        errors: 0,
        dropped: 1,
        dropped_generator: 0.5,
        generator_delay_ms: 40,
        in_flight: 9,
        latency_p50_ms: 20,
        latency_p95_ms: 70,
        latency_p99_ms: 90,
        service_p99_ms: 4,
      },
    ]);
  });
});
