import { z } from "zod";
import { BatchSummarySchema } from "../synth/batch-summary";

/**
 * The account's generator state: every batch with its seed and summary, in the
 * AccountAgent's own SQLite, so it is per account by construction.
 */
export const BatchRecordSchema = BatchSummarySchema.extend({
  operator: z.string(),
  started_at: z.string(),
  finished_at: z.string(),
  outcome: z.enum(["completed", "failed"]),
  error: z.string().nullable(),
});
export type BatchRecord = z.infer<typeof BatchRecordSchema>;

export const RECENT_BATCHES = 50;

export class BatchHistory {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(`CREATE TABLE IF NOT EXISTS synthetic_batches (
      batch_id TEXT PRIMARY KEY,
      record TEXT NOT NULL,
      started_at TEXT NOT NULL
    )`);
  }

  record(entry: BatchRecord): void {
    this.sql.exec(
      "INSERT INTO synthetic_batches (batch_id, record, started_at) VALUES (?, ?, ?)",
      entry.batch_id,
      JSON.stringify(BatchRecordSchema.parse(entry)),
      entry.started_at,
    );
  }

  /** Newest first. */
  recent(limit: number = RECENT_BATCHES): BatchRecord[] {
    return this.sql
      .exec<{ record: string }>("SELECT record FROM synthetic_batches ORDER BY started_at DESC, batch_id DESC LIMIT ?", limit)
      .toArray()
      .map((row) => BatchRecordSchema.parse(JSON.parse(row.record)));
  }
}
