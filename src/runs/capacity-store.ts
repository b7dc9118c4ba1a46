import { insertRow, type StatusGuardedTable, updateIfStatus } from "../store/status-guarded-rows";
import { type SearchRecord, SearchRecordSchema, type SearchStatus } from "./capacity-schemas";

const SEARCHES: StatusGuardedTable<SearchRecord> = {
  table: "capacity_searches",
  idColumn: "search_id",
  recordColumn: "state",
  schema: SearchRecordSchema,
  id: (record) => record.search_id,
  lookups: (record) => ({ started_at: record.started_at }),
};

/** Capacity searches in the AccountAgent's own SQLite (table: account/storage-schema.ts, step 8). */
export class SearchStore {
  constructor(private readonly sql: SqlStorage) {}

  insert(record: SearchRecord): void {
    insertRow(this.sql, SEARCHES, record);
  }

  /** Writes the record only while the stored search is still `expected`: a stop wins over a tick in flight. */
  update(record: SearchRecord, expected: SearchStatus): boolean {
    return updateIfStatus(this.sql, SEARCHES, record, expected);
  }

  get(searchId: string): SearchRecord | undefined {
    const row = this.sql
      .exec<{ state: string }>("SELECT state FROM capacity_searches WHERE search_id = ?", searchId)
      .toArray()[0];
    return row ? SearchRecordSchema.parse(JSON.parse(row.state)) : undefined;
  }

  running(): SearchRecord[] {
    return this.sql
      .exec<{ state: string }>("SELECT state FROM capacity_searches WHERE status = 'running' ORDER BY started_at")
      .toArray()
      .map((row) => SearchRecordSchema.parse(JSON.parse(row.state)));
  }

  /**
   * Ends a running search `failed` without reading it through the schema:
   * the record may be what made the tick fail, and the search must end
   * anyway, or it holds the account's run slot forever.
   */
  fail(searchId: string, problem: string, finishedAt: Date): boolean {
    const cursor = this.sql.exec(
      `UPDATE capacity_searches SET status = 'failed',
         state = json_set(state, '$.status', 'failed', '$.finished_at', ?, '$.problem', ?, '$.pending', json('null'))
       WHERE search_id = ? AND status = 'running'`,
      finishedAt.toISOString(),
      problem,
      searchId,
    );
    return cursor.rowsWritten > 0;
  }
}
