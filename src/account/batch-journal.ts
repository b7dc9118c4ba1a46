import type { BatchJournal } from "../synth/batch-sender";
import { type BatchOutcome, type BatchRecord, BatchRecordSchema } from "../synth/batch-summary";
import type { TallySnapshot } from "../synth/tally";

const RECENT_BATCHES = 50;

/**
 * The account's generator state: every batch with its seed and tally, in the
 * AccountAgent's own SQLite, so it is per account by construction.
 */
export class SqlBatchJournal implements BatchJournal {
  /**
   * The batches this instance opened and has not closed. The object runs one
   * batch at a time, so this holds one record, and its updates are written
   * from it instead of reading and parsing the stored row back every time.
   */
  private readonly inFlight = new Map<string, BatchRecord>();

  constructor(private readonly sql: SqlStorage) {}

  open(record: BatchRecord): void {
    const checked = BatchRecordSchema.parse(record);
    this.sql.exec(
      "INSERT INTO synthetic_batches (batch_id, record, started_at, outcome) VALUES (?, ?, ?, ?)",
      checked.batch_id,
      JSON.stringify(checked),
      checked.started_at,
      checked.outcome,
    );
    this.inFlight.set(checked.batch_id, checked);
  }

  update(batchId: string, tally: TallySnapshot): void {
    this.rewrite(batchId, (record) => ({ ...record, ...counts(tally) }));
  }

  close(
    batchId: string,
    tally: TallySnapshot,
    outcome: Exclude<BatchOutcome, "running" | "interrupted">,
    finishedAt: string,
    error: string | null,
  ): void {
    this.rewrite(batchId, (record) => ({ ...record, ...counts(tally), outcome, finished_at: finishedAt, error }));
    this.inFlight.delete(batchId);
  }

  /**
   * Called when the object starts: nothing can be running in a fresh
   * instance, so a batch still marked running was cut short by a restart.
   */
  markInterrupted(): number {
    const running = this.sql
      .exec<{ batch_id: string }>("SELECT batch_id FROM synthetic_batches WHERE outcome = 'running'")
      .toArray();
    for (const { batch_id } of running) {
      this.rewrite(batch_id, (record) => ({
        ...record,
        outcome: "interrupted",
        error:
          "the server stopped while this batch was running; the tally shows what was answered before that. Send the same seed again to finish it without duplicates.",
      }));
    }
    return running.length;
  }

  /** Newest first. */
  recent(limit: number = RECENT_BATCHES): BatchRecord[] {
    return this.sql
      .exec<{ record: string }>(
        "SELECT record FROM synthetic_batches ORDER BY started_at DESC, batch_id DESC LIMIT ?",
        limit,
      )
      .toArray()
      .map((row) => BatchRecordSchema.parse(JSON.parse(row.record)));
  }

  private rewrite(batchId: string, change: (record: BatchRecord) => BatchRecord): void {
    const current = this.inFlight.get(batchId) ?? this.stored(batchId);
    if (!current) return;
    // The changes are typed tallies and outcomes; the record was checked when it was opened or read.
    const next = change(current);
    if (this.inFlight.has(batchId)) this.inFlight.set(batchId, next);
    this.sql.exec(
      "UPDATE synthetic_batches SET record = ?, outcome = ? WHERE batch_id = ?",
      JSON.stringify(next),
      next.outcome,
      batchId,
    );
  }

  private stored(batchId: string): BatchRecord | undefined {
    const row = this.sql
      .exec<{ record: string }>("SELECT record FROM synthetic_batches WHERE batch_id = ?", batchId)
      .toArray()[0];
    return row ? BatchRecordSchema.parse(JSON.parse(row.record)) : undefined;
  }
}

function counts(tally: TallySnapshot) {
  const { sent: _sent, ...rest } = tally;
  return rest;
}
