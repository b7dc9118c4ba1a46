import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { getAgentByName } from "agents";
import { describe, expect, it } from "vitest";
import { migrateAccountStorage } from "../../src/account/storage-schema";
import { RunStore } from "../../src/runs/run-store";
import { summaryOf } from "../../src/runs/summary";

// Runs stored before the load engine measured histograms keep their counts
// across the upgrade; one that was still running ends interrupted, since its
// old cursor means nothing to the new engine.

const tables = (sql: SqlStorage) =>
  sql
    .exec<{ name: string }>(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%'",
    )
    .toArray()
    .map((row) => row.name);

function oldState(runId: string, status: string, ramp: number) {
  return {
    summary: {
      run_id: runId,
      status,
      operator: "Ada Ops (acme, local dev)",
      started_at: "2026-12-01T10:00:00.000Z",
      finished_at: status === "running" ? null : "2026-12-01T10:00:30.000Z",
      plan: {
        rate_per_second: 4,
        duration_seconds: 30,
        ramp_seconds: ramp,
        mode: "seeded",
        seed: 77,
        total_orders: ramp === 0 ? 120 : 116,
      },
      sent: 40,
      accepted: 38,
      rejected: 2,
      status_counts: { "201": 38, "422": 2 },
      current_rate: 4,
      rejection_reasons: ["422 unknown customer C-1"],
      paused: null,
      problem: status === "stopped" ? "stopped by Ada" : null,
    },
    cursor: { next_index: 40, ahead: [], schedule_start_ms: 0, last_tick_ms: 0, unreachable_since_ms: null },
  };
}

describe("upgrading stored runs", () => {
  it("converts each run to the new record, keeps its counts and plan, and ends a running one interrupted", async () => {
    const stub = await getAgentByName(env.ACCOUNT_AGENT, `run-upgrade-${crypto.randomUUID()}`);
    const { stopped, running, chartRows } = await runInDurableObject(stub, (_instance, state) => {
      const sql = state.storage.sql;
      // The object as version 5 left it: its tables rebuilt by the steps up to 5 and none after,
      // so a step added later runs on the upgrade as it would on a real object.
      state.storage.transactionSync(() => {
        for (const table of tables(sql)) sql.exec(`DROP TABLE ${table}`);
      });
      migrateAccountStorage(state.storage, 5);
      sql.exec(
        "INSERT INTO runs (run_id, status, started_at, state) VALUES ('R-old-stopped', 'stopped', '2026-12-01T10:00:00.000Z', ?)",
        JSON.stringify(oldState("R-old-stopped", "stopped", 2)),
      );
      sql.exec(
        "INSERT INTO runs (run_id, status, started_at, state) VALUES ('R-old-running', 'running', '2026-12-01T10:00:00.000Z', ?)",
        JSON.stringify(oldState("R-old-running", "running", 0)),
      );
      sql.exec("INSERT INTO run_intervals (run_id, seq, body) VALUES ('R-old-stopped', 1, '{}')");
      sql.exec(
        "INSERT INTO run_chart (run_id, bucket, intervals, at_sum, sent, accepted, rejected, p50_by_sent, p95_max) VALUES ('R-old-stopped', 0, 1, 1, 4, 4, 0, 20, 9)",
      );
      migrateAccountStorage(state.storage);
      const store = new RunStore(sql);
      return {
        stopped: store.get("R-old-stopped"),
        running: store.get("R-old-running"),
        chartRows: sql.exec("SELECT COUNT(*) AS n FROM run_chart").one().n,
      };
    });
    expect(stopped).toMatchObject({
      status: "stopped",
      problem: "stopped by Ada",
      plan: {
        start_rate: 0,
        stages: [
          { duration_seconds: 2, rate_per_second: 4 },
          { duration_seconds: 28, rate_per_second: 4 },
        ],
        total_orders: 116,
        seed: 77,
      },
      figures: {
        answered: 40,
        accepted: 38,
        rejected: 2,
        status_counts: { "201": 38, "422": 2 },
        rejection_reasons: ["422 unknown customer C-1"],
      },
    });
    expect(running).toMatchObject({
      status: "interrupted",
      plan: { start_rate: 4, stages: [{ duration_seconds: 30, rate_per_second: 4 }] },
    });
    expect(running?.problem).toMatch(/^the server was upgraded while this run was going/);
    expect(running?.finished_at).not.toBeNull();
    expect(chartRows).toBe(0);
    // A converted run reads like any other.
    if (!stopped) throw new Error("not converted");
    expect(summaryOf(stopped, "http://localhost/runs/R-old-stopped", Date.now())).toMatchObject({
      sent: 40,
      latency: { count: 0 },
      verdict: { result: null },
    });
  });
});
