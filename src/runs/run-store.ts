import { insertRow, type StatusGuardedTable, updateIfStatus } from "../store/status-guarded-rows";
import { type RunRecord, RunRecordSchema } from "./record";
import { CHART_POINTS, chartBucketSeconds, type RunInterval, RunIntervalSchema, type RunStatus } from "./run-schemas";

const RECENT_RUNS = 20;
/** get_traffic_run shows the latest intervals. */
export const RECENT_INTERVALS = 30;
/**
 * The run page reads at most this many chart buckets, the latest: twice what
 * it draws, so a run that paused past its planned end still fits.
 */
export const CHART_ROWS = 2 * CHART_POINTS;

const round1 = (n: number) => Math.round(n * 10) / 10;

type ChartRow = {
  intervals: number;
  seconds_sum: number;
  dropped_generator: number;
  generator_delay_max: number;
  at_sum: number;
  planned_sum: number;
  sent: number;
  accepted: number;
  rejected: number;
  errors: number;
  dropped: number;
  p50_by_sent: number;
  p95_max: number;
  p99_max: number;
  service_p99_max: number;
  in_flight_max: number;
};

const RUNS: StatusGuardedTable<RunRecord> = {
  table: "runs",
  idColumn: "run_id",
  recordColumn: "state",
  schema: RunRecordSchema,
  id: (record) => record.run_id,
  lookups: (record) => ({ started_at: record.started_at }),
};

/** Traffic runs in the AccountAgent's own SQLite (tables: account/storage-schema.ts). */
export class RunStore {
  constructor(private readonly sql: SqlStorage) {}

  insert(record: RunRecord): void {
    insertRow(this.sql, RUNS, record);
  }

  /** Writes the record only while the stored run is still `expected`: a stop wins over a tick in flight. */
  update(record: RunRecord, expected: RunStatus): boolean {
    return updateIfStatus(this.sql, RUNS, record, expected);
  }

  get(runId: string): RunRecord | undefined {
    const row = this.sql.exec<{ state: string }>("SELECT state FROM runs WHERE run_id = ?", runId).toArray()[0];
    return row ? RunRecordSchema.parse(JSON.parse(row.state)) : undefined;
  }

  status(runId: string): RunStatus | undefined {
    return this.sql.exec<{ status: RunStatus }>("SELECT status FROM runs WHERE run_id = ?", runId).toArray()[0]?.status;
  }

  /**
   * Ends a running run `failed` without reading it through the schema: the
   * record may be what made the tick fail, and the run must end anyway, or
   * it holds the account's run slot forever.
   */
  fail(runId: string, problem: string, finishedAt: Date): boolean {
    const cursor = this.sql.exec(
      `UPDATE runs SET status = 'failed',
         state = json_set(state, '$.status', 'failed', '$.finished_at', ?, '$.problem', ?, '$.paused', json('null'), '$.current_rate', 0, '$.in_flight', 0)
       WHERE run_id = ? AND status = 'running'`,
      finishedAt.toISOString(),
      problem,
      runId,
    );
    return cursor.rowsWritten > 0;
  }

  running(): RunRecord[] {
    return this.sql
      .exec<{ state: string }>("SELECT state FROM runs WHERE status = 'running' ORDER BY started_at")
      .toArray()
      .map((row) => RunRecordSchema.parse(JSON.parse(row.state)));
  }

  /** Newest first. */
  recent(limit: number = RECENT_RUNS): RunRecord[] {
    return this.sql
      .exec<{ state: string }>("SELECT state FROM runs ORDER BY started_at DESC, run_id DESC LIMIT ?", limit)
      .toArray()
      .map((row) => RunRecordSchema.parse(JSON.parse(row.state)));
  }

  /** Stores one tick's figures, and adds them to the chart bucket of `durationSeconds`' run they fall in. */
  addInterval(runId: string, interval: RunInterval, durationSeconds: number): void {
    const figures = RunIntervalSchema.parse(interval);
    this.sql.exec(
      "INSERT INTO run_intervals (run_id, seq, body) VALUES (?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM run_intervals WHERE run_id = ?), ?)",
      runId,
      runId,
      JSON.stringify(figures),
    );
    this.sql.exec(
      `INSERT INTO run_chart (run_id, bucket, intervals, seconds_sum, at_sum, planned_sum, sent, accepted, rejected, errors, dropped, dropped_generator, p50_by_sent, p95_max, p99_max, service_p99_max, generator_delay_max, in_flight_max)
       VALUES (?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (run_id, bucket) DO UPDATE SET intervals = intervals + 1, seconds_sum = seconds_sum + excluded.seconds_sum,
         at_sum = at_sum + excluded.at_sum, planned_sum = planned_sum + excluded.planned_sum, dropped_generator = dropped_generator + excluded.dropped_generator,
         generator_delay_max = MAX(generator_delay_max, excluded.generator_delay_max),
         sent = sent + excluded.sent, accepted = accepted + excluded.accepted, rejected = rejected + excluded.rejected,
         errors = errors + excluded.errors, dropped = dropped + excluded.dropped, p50_by_sent = p50_by_sent + excluded.p50_by_sent,
         p95_max = MAX(p95_max, excluded.p95_max), p99_max = MAX(p99_max, excluded.p99_max),
         service_p99_max = MAX(service_p99_max, excluded.service_p99_max), in_flight_max = MAX(in_flight_max, excluded.in_flight_max)`,
      runId,
      Math.floor(figures.at_second / chartBucketSeconds(durationSeconds)),
      figures.seconds,
      figures.at_second,
      figures.planned_rate,
      figures.sent,
      figures.accepted,
      figures.rejected,
      figures.errors,
      figures.dropped,
      figures.dropped_generator,
      figures.latency_p50_ms * figures.sent,
      figures.latency_p95_ms,
      figures.latency_p99_ms,
      figures.service_p99_ms,
      figures.generator_delay_ms,
      figures.in_flight,
    );
  }

  /**
   * The chart's points, oldest first: at most CHART_ROWS buckets, each averaged
   * per interval, with the intervals' average real length in `seconds` (a
   * rate is a count over it), the median weighted by orders answered and
   * the tail percentiles the worst of the bucket, so a spike survives.
   */
  chart(runId: string): RunInterval[] {
    return this.sql
      .exec<ChartRow>(
        `SELECT intervals, seconds_sum, at_sum, planned_sum, sent, accepted, rejected, errors, dropped, dropped_generator, p50_by_sent, p95_max, p99_max, service_p99_max, generator_delay_max, in_flight_max
         FROM (SELECT * FROM run_chart WHERE run_id = ? ORDER BY bucket DESC LIMIT ?) ORDER BY bucket`,
        runId,
        CHART_ROWS,
      )
      .toArray()
      .map((row) => ({
        at_second: round1(row.at_sum / row.intervals),
        // Stored before their length was: a second each.
        seconds: row.seconds_sum > 0 ? Math.round((row.seconds_sum / row.intervals) * 1000) / 1000 : 1,
        planned_rate: round1(row.planned_sum / row.intervals),
        sent: round1(row.sent / row.intervals),
        accepted: round1(row.accepted / row.intervals),
        rejected: round1(row.rejected / row.intervals),
        errors: round1(row.errors / row.intervals),
        dropped: round1(row.dropped / row.intervals),
        dropped_generator: round1(row.dropped_generator / row.intervals),
        generator_delay_ms: row.generator_delay_max,
        in_flight: row.in_flight_max,
        latency_p50_ms: row.sent === 0 ? 0 : round1(row.p50_by_sent / row.sent),
        latency_p95_ms: row.p95_max,
        latency_p99_ms: row.p99_max,
        service_p99_ms: row.service_p99_max,
      }));
  }

  /** The latest `limit`, oldest first. */
  intervals(runId: string, limit: number): RunInterval[] {
    return this.sql
      .exec<{ body: string }>(
        "SELECT body FROM (SELECT seq, body FROM run_intervals WHERE run_id = ? ORDER BY seq DESC LIMIT ?) ORDER BY seq",
        runId,
        limit,
      )
      .toArray()
      .map((row) => RunIntervalSchema.parse(JSON.parse(row.body)));
  }

  /** Every interval, oldest first, a page at a time: for the CSV export. */
  *allIntervals(runId: string, page = 500): Generator<RunInterval> {
    for (let after = 0; ; after += page) {
      const rows = this.sql
        .exec<{ body: string }>(
          "SELECT body FROM run_intervals WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ?",
          runId,
          after,
          page,
        )
        .toArray();
      for (const row of rows) yield RunIntervalSchema.parse(JSON.parse(row.body));
      if (rows.length < page) return;
    }
  }
}
