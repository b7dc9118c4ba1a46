import { RunIntervalSchema, type RunInterval, type RunStatus } from "../synth/run-schemas";
import { RunStateSchema, type RunState } from "../synth/traffic-run";

export const RECENT_RUNS = 20;
/** get_traffic_run shows the latest intervals; the run page reads them all. */
export const RECENT_INTERVALS = 30;

/** Traffic runs in the AccountAgent's own SQLite (tables: storage-schema.ts). */
export class RunStore {
  constructor(private readonly sql: SqlStorage) {}

  insert(state: RunState): void {
    this.sql.exec(
      "INSERT INTO runs (run_id, status, started_at, state) VALUES (?, ?, ?, ?)",
      state.summary.run_id,
      state.summary.status,
      state.summary.started_at,
      JSON.stringify(RunStateSchema.parse(state)),
    );
  }

  /** Writes the new state only while the stored run is still `expected` (a stop wins over a tick in flight). */
  update(state: RunState, expected: RunStatus): boolean {
    const cursor = this.sql.exec(
      "UPDATE runs SET status = ?, state = ? WHERE run_id = ? AND status = ?",
      state.summary.status,
      JSON.stringify(RunStateSchema.parse(state)),
      state.summary.run_id,
      expected,
    );
    return cursor.rowsWritten > 0;
  }

  get(runId: string): RunState | undefined {
    const row = this.sql.exec<{ state: string }>("SELECT state FROM runs WHERE run_id = ?", runId).toArray()[0];
    return row ? RunStateSchema.parse(JSON.parse(row.state)) : undefined;
  }

  /** Only the status column: asked before every send, so a stop is seen at once without reading the run. */
  status(runId: string): RunStatus | undefined {
    return this.sql.exec<{ status: RunStatus }>("SELECT status FROM runs WHERE run_id = ?", runId).toArray()[0]?.status;
  }

  /**
   * Ends a running run `failed` without reading its state through the schema:
   * the state may be what made the tick fail, and the run must end anyway, or
   * it holds the account's run slot forever.
   */
  fail(runId: string, problem: string, finishedAt: Date): boolean {
    const cursor = this.sql.exec(
      `UPDATE runs SET status = 'failed',
         state = json_set(state, '$.summary.status', 'failed', '$.summary.finished_at', ?, '$.summary.problem', ?, '$.summary.paused', json('null'), '$.summary.current_rate', 0)
       WHERE run_id = ? AND status = 'running'`,
      finishedAt.toISOString(),
      problem,
      runId,
    );
    return cursor.rowsWritten > 0;
  }

  running(): RunState[] {
    return this.sql
      .exec<{ state: string }>("SELECT state FROM runs WHERE status = 'running' ORDER BY started_at")
      .toArray()
      .map((row) => RunStateSchema.parse(JSON.parse(row.state)));
  }

  /** Newest first. */
  recent(limit: number = RECENT_RUNS): RunState[] {
    return this.sql
      .exec<{ state: string }>("SELECT state FROM runs ORDER BY started_at DESC, run_id DESC LIMIT ?", limit)
      .toArray()
      .map((row) => RunStateSchema.parse(JSON.parse(row.state)));
  }

  addInterval(runId: string, interval: RunInterval): void {
    this.sql.exec(
      "INSERT INTO run_intervals (run_id, seq, body) VALUES (?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM run_intervals WHERE run_id = ?), ?)",
      runId,
      runId,
      JSON.stringify(RunIntervalSchema.parse(interval)),
    );
  }

  /** Oldest first; the latest `limit` when given. */
  intervals(runId: string, limit?: number): RunInterval[] {
    const rows =
      limit === undefined
        ? this.sql.exec<{ body: string }>("SELECT body FROM run_intervals WHERE run_id = ? ORDER BY seq", runId).toArray()
        : this.sql
            .exec<{ body: string }>("SELECT body FROM (SELECT seq, body FROM run_intervals WHERE run_id = ? ORDER BY seq DESC LIMIT ?) ORDER BY seq", runId, limit)
            .toArray();
    return rows.map((row) => RunIntervalSchema.parse(JSON.parse(row.body)));
  }
}
