/**
 * The AccountAgent's own SQLite schema, in one versioned list. Each step runs
 * once, in order, inside the object's storage transaction; the version
 * reached is kept in a table of its own. Add a step at the end; never edit
 * one that has shipped.
 */
const STEPS: readonly (readonly string[])[] = [
  // 1: proposals and the batch history as they were first introduced.
  [
    `CREATE TABLE IF NOT EXISTS proposals (
      proposal_id TEXT PRIMARY KEY,
      order_id TEXT NOT NULL,
      change_key TEXT NOT NULL,
      pinned_version INTEGER NOT NULL,
      status TEXT NOT NULL,
      created_at TEXT NOT NULL,
      body TEXT NOT NULL
    )`,
    "CREATE INDEX IF NOT EXISTS proposals_by_change ON proposals (order_id, change_key, pinned_version)",
    `CREATE TABLE IF NOT EXISTS synthetic_batches (
      batch_id TEXT PRIMARY KEY,
      record TEXT NOT NULL,
      started_at TEXT NOT NULL
    )`,
  ],
  // 2: batches are journaled while they run, so the outcome is a column the restart sweep can find.
  [
    "ALTER TABLE synthetic_batches ADD COLUMN outcome TEXT NOT NULL DEFAULT 'completed'",
    "CREATE INDEX synthetic_batches_running ON synthetic_batches (outcome) WHERE outcome = 'running'",
    "CREATE INDEX proposals_by_status ON proposals (status, created_at)",
  ],
  // 3: sustained traffic runs, their state (one JSON row each) and their per-interval figures.
  [
    `CREATE TABLE runs (
      run_id TEXT PRIMARY KEY,
      status TEXT NOT NULL,
      started_at TEXT NOT NULL,
      state TEXT NOT NULL
    )`,
    "CREATE INDEX runs_by_status ON runs (status)",
    `CREATE TABLE run_intervals (
      run_id TEXT NOT NULL,
      seq INTEGER NOT NULL,
      body TEXT NOT NULL,
      PRIMARY KEY (run_id, seq)
    )`,
  ],
  // 4: the head of the account's audit chain as last sealed, kept outside D1 to catch a cut-off or rewritten end.
  ["CREATE TABLE audit_anchor (id INTEGER PRIMARY KEY CHECK (id = 1), seq INTEGER NOT NULL, hash TEXT NOT NULL)"],
  // 5: a run's chart, summed per bucket of seconds as the run goes, so the run page reads a bounded
  // number of rows instead of every interval; filled from the intervals of the runs stored before.
  // 240 is CHART_POINTS (now runs/run-schemas.ts) as it was when this step shipped.
  [
    `CREATE TABLE run_chart (
      run_id TEXT NOT NULL,
      bucket INTEGER NOT NULL,
      intervals INTEGER NOT NULL,
      at_sum REAL NOT NULL,
      sent INTEGER NOT NULL,
      accepted INTEGER NOT NULL,
      rejected INTEGER NOT NULL,
      p50_by_sent REAL NOT NULL,
      p95_max REAL NOT NULL,
      PRIMARY KEY (run_id, bucket)
    )`,
    `INSERT INTO run_chart (run_id, bucket, intervals, at_sum, sent, accepted, rejected, p50_by_sent, p95_max)
     SELECT i.run_id,
            CAST(json_extract(i.body, '$.at_second') / ((json_extract(r.state, '$.summary.plan.duration_seconds') + 239) / 240) AS INTEGER) AS bucket,
            COUNT(*), SUM(json_extract(i.body, '$.at_second')),
            SUM(json_extract(i.body, '$.sent')), SUM(json_extract(i.body, '$.accepted')), SUM(json_extract(i.body, '$.rejected')),
            SUM(json_extract(i.body, '$.latency_p50_ms') * json_extract(i.body, '$.sent')), MAX(json_extract(i.body, '$.latency_p95_ms'))
     FROM run_intervals i JOIN runs r ON r.run_id = i.run_id
     GROUP BY i.run_id, bucket`,
  ],
  // 6: runs measured as an open model (histograms, drops, errors, a verdict). A run stored before
  // keeps its counts, converted to the new record; one still running is ended interrupted, since
  // its cursor means nothing to the new engine. Its intervals and chart are not carried over.
  [
    "ALTER TABLE run_chart ADD COLUMN planned_sum REAL NOT NULL DEFAULT 0",
    "ALTER TABLE run_chart ADD COLUMN errors INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE run_chart ADD COLUMN dropped INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE run_chart ADD COLUMN p99_max REAL NOT NULL DEFAULT 0",
    "ALTER TABLE run_chart ADD COLUMN service_p99_max REAL NOT NULL DEFAULT 0",
    "ALTER TABLE run_chart ADD COLUMN in_flight_max INTEGER NOT NULL DEFAULT 0",
    "DELETE FROM run_chart WHERE run_id IN (SELECT run_id FROM runs WHERE json_type(state, '$.summary') IS NOT NULL)",
    "DELETE FROM run_intervals WHERE run_id IN (SELECT run_id FROM runs WHERE json_type(state, '$.summary') IS NOT NULL)",
    `UPDATE runs SET
       status = CASE WHEN status = 'running' THEN 'interrupted' ELSE status END,
       state = json_object(
         'run_id', state ->> '$.summary.run_id',
         'status', CASE WHEN status = 'running' THEN 'interrupted' ELSE status END,
         'operator', state ->> '$.summary.operator',
         'started_at', state ->> '$.summary.started_at',
         'finished_at', COALESCE(state ->> '$.summary.finished_at', strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
         'plan', json_object(
           'start_rate', CASE WHEN state ->> '$.summary.plan.ramp_seconds' = 0 THEN state ->> '$.summary.plan.rate_per_second' ELSE 0 END,
           'stages', CASE
             WHEN state ->> '$.summary.plan.ramp_seconds' = 0 OR state ->> '$.summary.plan.ramp_seconds' = state ->> '$.summary.plan.duration_seconds'
               THEN json_array(json_object('duration_seconds', state ->> '$.summary.plan.duration_seconds', 'rate_per_second', state ->> '$.summary.plan.rate_per_second'))
             ELSE json_array(
               json_object('duration_seconds', state ->> '$.summary.plan.ramp_seconds', 'rate_per_second', state ->> '$.summary.plan.rate_per_second'),
               json_object('duration_seconds', (state ->> '$.summary.plan.duration_seconds') - (state ->> '$.summary.plan.ramp_seconds'), 'rate_per_second', state ->> '$.summary.plan.rate_per_second'))
           END,
           'duration_seconds', state ->> '$.summary.plan.duration_seconds',
           'peak_rate', state ->> '$.summary.plan.rate_per_second',
           'mode', state ->> '$.summary.plan.mode',
           'seed', state ->> '$.summary.plan.seed',
           'total_orders', state ->> '$.summary.plan.total_orders',
           'invalid_share', json('{}'), 'thresholds', json('[]'), 'shards', 1, 'max_in_flight', 8, 'max_lateness_ms', 1000),
         'problem', CASE WHEN status = 'running'
           THEN 'the server was upgraded while this run was going, so it was not resumed; start it again with the same seed to continue: orders already sent are answered 200 and not duplicated.'
           ELSE state ->> '$.summary.problem' END,
         'paused', json('null'),
         'figures', json_object(
           'launched', state ->> '$.summary.sent', 'answered', state ->> '$.summary.sent',
           'accepted', state ->> '$.summary.accepted', 'rejected', state ->> '$.summary.rejected',
           'errors', 0, 'dropped', 0,
           'status_counts', state -> '$.summary.status_counts',
           'rejection_reasons', state -> '$.summary.rejection_reasons',
           'drill', json('{}'), 'findings', json('[]'),
           'latency', json('{"buckets":{},"zeros":0,"count":0,"max_ms":0}'),
           'service', json('{"buckets":{},"zeros":0,"count":0,"max_ms":0}'),
           'lateness', json('{"buckets":{},"zeros":0,"count":0,"max_ms":0}'),
           'max_in_flight', 0, 'paused_ms', 0),
         'shards', json_array(json_object('status', CASE WHEN status = 'running' THEN 'interrupted' ELSE 'completed' END, 'problem', json('null'), 'dropped', 0, 'max_in_flight', 0)),
         'in_flight', 0, 'current_rate', 0, 'last_tick_ms', 0, 'missed_ticks', 0)
     WHERE json_type(state, '$.summary') IS NOT NULL`,
  ],
  // 7: a chart point's rate is its counts over the intervals' real length, not one second each; and the
  // generator's own drops and delay, so the page shows where the generator, not the target, held a run back.
  // Points stored before count their intervals as a second each (seconds_sum 0 reads as that).
  [
    "ALTER TABLE run_chart ADD COLUMN seconds_sum REAL NOT NULL DEFAULT 0",
    "ALTER TABLE run_chart ADD COLUMN dropped_generator INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE run_chart ADD COLUMN generator_delay_max REAL NOT NULL DEFAULT 0",
  ],
  // 8: capacity searches (runs/capacity-coordinator.ts): one JSON row each, its steps inside; each step is a run of its
  // own.
  [
    `CREATE TABLE capacity_searches (
      search_id TEXT PRIMARY KEY,
      status TEXT NOT NULL,
      started_at TEXT NOT NULL,
      state TEXT NOT NULL
    )`,
    "CREATE INDEX capacity_searches_by_status ON capacity_searches (status)",
  ],
  // 9: the synthetic order budget's bookings (synth/order-budget.ts), kept so a restart does not forget the minute.
  // `holder` names the run or search a booking is for (run:<id>, search:<id>), null for a batch.
  [
    `CREATE TABLE synthetic_budget (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      at INTEGER NOT NULL,
      orders INTEGER NOT NULL,
      holder TEXT
    )`,
  ],
  // 10: MCP tasks (account/task-store.ts): a handle on long work (a run, a search) that the credential which started
  // it polls; the work itself stays in its own table, the task only points at it.
  [
    `CREATE TABLE mcp_tasks (
      task_id TEXT PRIMARY KEY,
      owner TEXT NOT NULL,
      kind TEXT NOT NULL,
      subject_id TEXT NOT NULL,
      cancelled INTEGER NOT NULL DEFAULT 0,
      answered INTEGER NOT NULL DEFAULT 0,
      created_ms INTEGER NOT NULL,
      updated_ms INTEGER NOT NULL,
      expires_ms INTEGER NOT NULL
    )`,
    "CREATE INDEX mcp_tasks_by_expiry ON mcp_tasks (expires_ms)",
  ],
];

export const STORAGE_VERSION = STEPS.length;

/**
 * Brings the object's storage up to `target`: the current version, except in
 * upgrade tests, which build an object as an older version left it.
 */
export function migrateAccountStorage(storage: DurableObjectStorage, target: number = STORAGE_VERSION): void {
  storage.transactionSync(() => {
    const sql = storage.sql;
    sql.exec("CREATE TABLE IF NOT EXISTS account_schema (version INTEGER NOT NULL)");
    const row = sql.exec<{ version: number }>("SELECT version FROM account_schema").toArray()[0];
    const current = row?.version ?? 0;
    for (let step = current; step < target; step++) {
      for (const statement of STEPS[step] ?? []) sql.exec(statement);
    }
    if (row === undefined) sql.exec("INSERT INTO account_schema (version) VALUES (?)", target);
    else if (current < target) sql.exec("UPDATE account_schema SET version = ?", target);
  });
}
