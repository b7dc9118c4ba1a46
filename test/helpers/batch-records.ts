import type { BatchRecord } from "../../src/synth/batch-summary";

/** A 100-order batch as the journal holds it before its first answer: running, nothing tallied yet. */
export function runningBatch(
  batchId: string,
  seed: number,
  startedAt = "2026-12-01T09:00:00.000Z",
  operator = "Ada",
): BatchRecord {
  return {
    batch_id: batchId,
    mode: "seeded",
    seed,
    requested: 100,
    accepted: 0,
    rejected: 0,
    status_counts: {},
    accepted_total_cents: 0,
    sample_failures: [],
    operator,
    started_at: startedAt,
    finished_at: null,
    outcome: "running",
    error: null,
  };
}
