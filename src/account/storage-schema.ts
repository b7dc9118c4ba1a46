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
  // 240 is CHART_POINTS (synth/run-schemas.ts) as it was when this step shipped.
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
];

export const STORAGE_VERSION = STEPS.length;

export function migrateAccountStorage(storage: DurableObjectStorage): void {
  storage.transactionSync(() => {
    const sql = storage.sql;
    sql.exec("CREATE TABLE IF NOT EXISTS account_schema (version INTEGER NOT NULL)");
    const row = sql.exec<{ version: number }>("SELECT version FROM account_schema").toArray()[0];
    const current = row?.version ?? 0;
    for (let step = current; step < STEPS.length; step++) {
      for (const statement of STEPS[step] ?? []) sql.exec(statement);
    }
    if (row === undefined) sql.exec("INSERT INTO account_schema (version) VALUES (?)", STEPS.length);
    else if (current !== STEPS.length) sql.exec("UPDATE account_schema SET version = ?", STEPS.length);
  });
}
