import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { getAgentByName } from "agents";
import { describe, expect, it } from "vitest";
import { SqlBatchJournal } from "../../src/account/batch-journal";
import type { TallySnapshot } from "../../src/synth/tally";
import { runningBatch } from "../helpers/batch-records";

// The batch journal in a real AccountAgent's SQLite (each test gets an object
// of its own): a batch is on record, running, before its first order leaves;
// its tally follows the answers; and a batch a restart cut short is kept as
// interrupted with everything known of it.

function withJournal<R>(body: (journal: SqlBatchJournal, sql: SqlStorage) => R | Promise<R>): Promise<R> {
  return getAgentByName(env.ACCOUNT_AGENT, `journal-unit-${crypto.randomUUID()}`).then((stub) =>
    runInDurableObject(stub, async (_instance, state) =>
      body(new SqlBatchJournal(state.storage.sql), state.storage.sql),
    ),
  );
}

const AFTER_40: TallySnapshot = {
  sent: 40,
  accepted: 38,
  rejected: 2,
  status_counts: { "201": 37, "200": 1, "422": 2 },
  accepted_total_cents: 123_400,
  sample_failures: ["422 unknown sku SKU-0000", "422 total mismatch: sent 1, expected 2"],
};

/** The outcome column the journal's own lookups use, beside the JSON record. */
function outcomeColumn(sql: SqlStorage, batchId: string): string | undefined {
  return sql.exec<{ outcome: string }>("SELECT outcome FROM synthetic_batches WHERE batch_id = ?", batchId).toArray()[0]
    ?.outcome;
}

describe("the batch journal in the account's SQLite", () => {
  it("after open the batch is listed as running, with its seed and empty counts", async () => {
    await withJournal((journal, sql) => {
      journal.open(runningBatch("B-1", 424242));
      expect(journal.recent()).toEqual([runningBatch("B-1", 424242)]);
      expect(outcomeColumn(sql, "B-1")).toBe("running");
    });
  });

  it("update changes the counts and nothing else", async () => {
    await withJournal((journal) => {
      journal.open(runningBatch("B-1", 7));
      journal.update("B-1", AFTER_40);
      const { sent: _sent, ...counts } = AFTER_40;
      expect(journal.recent()).toEqual([{ ...runningBatch("B-1", 7), ...counts }]);
    });
  });

  it("markInterrupted turns a running batch interrupted and keeps its seed and counts; finished batches are left alone", async () => {
    await withJournal((journal, sql) => {
      journal.open(runningBatch("B-cut", 99, "2026-12-01T09:00:00.000Z"));
      journal.update("B-cut", AFTER_40);
      journal.open(runningBatch("B-done", 5, "2026-12-01T08:00:00.000Z"));
      journal.close("B-done", { ...AFTER_40, sent: 100 }, "completed", "2026-12-01T08:00:01.000Z", null);
      const doneBefore = journal.recent().find((b) => b.batch_id === "B-done");

      expect(journal.markInterrupted()).toBe(1);

      const cut = journal.recent().find((b) => b.batch_id === "B-cut");
      const { sent: _sent, ...counts } = AFTER_40;
      expect(cut).toEqual({
        ...runningBatch("B-cut", 99),
        ...counts,
        outcome: "interrupted",
        error:
          "the server stopped while this batch was running; the tally shows what was answered before that. Send the same seed again to finish it without duplicates.",
      });
      expect(outcomeColumn(sql, "B-cut")).toBe("interrupted");
      expect(journal.recent().find((b) => b.batch_id === "B-done")).toEqual(doneBefore);
      // A second start finds nothing running any more.
      expect(journal.markInterrupted()).toBe(0);
    });
  });
});
