import { z } from "zod/v4";
import { GeneratorModeSchema } from "./generators";

/** What send_orders answers; also what the batch history stores per batch. */
export const MAX_SAMPLE_FAILURES = 5;

export const BatchSummarySchema = z.object({
  batch_id: z.string().describe("Id of this batch in the account's batch history"),
  mode: GeneratorModeSchema,
  seed: z.number().int().describe("Seed used; pass it back to replay exactly this batch"),
  requested: z.number().int(),
  accepted: z.number().int().describe("Orders the API answered with 2xx (201 new, 200 idempotent replay)"),
  rejected: z.number().int(),
  status_counts: z.record(z.string(), z.number().int()).describe("HTTP status code -> number of orders"),
  accepted_total_cents: z.number().int(),
  sample_failures: z
    .array(z.string())
    .max(MAX_SAMPLE_FAILURES)
    .describe(`Up to ${MAX_SAMPLE_FAILURES} rejections with their reasons`),
});
export type BatchSummary = z.infer<typeof BatchSummarySchema>;

const BatchOutcomeSchema = z.enum(["running", "completed", "failed", "interrupted"]);
export type BatchOutcome = z.infer<typeof BatchOutcomeSchema>;

/**
 * A batch in the account's journal. It is written before the first order
 * leaves, updated as answers come in, and closed at the end, so a batch cut
 * short by a crash is still listed, as `interrupted`, with its seed.
 */
export const BatchRecordSchema = BatchSummarySchema.extend({
  operator: z.string(),
  started_at: z.string(),
  finished_at: z.string().nullable().describe("null while the batch is running"),
  outcome: BatchOutcomeSchema.describe(
    "interrupted: the server stopped while the batch was running; replay its seed to finish it",
  ),
  error: z.string().nullable(),
});
export type BatchRecord = z.infer<typeof BatchRecordSchema>;
