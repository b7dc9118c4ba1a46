import { z } from "zod/v4";
import { GeneratorModeSchema } from "./generators";

/** What get_traffic_run answers, and what the account's object stores per run. */
export const RunStatusSchema = z.enum(["running", "completed", "stopped", "interrupted", "failed"]);
export type RunStatus = z.infer<typeof RunStatusSchema>;

export const MAX_RUN_REASONS = 5;

/** The run page draws at most this many points, however long the run: a light page that refreshes every 2 s. */
export const CHART_POINTS = 240;

/** How many seconds of a run one stored chart point covers: 1 for runs up to CHART_POINTS seconds. */
export function chartBucketSeconds(durationSeconds: number): number {
  return Math.max(1, Math.ceil(durationSeconds / CHART_POINTS));
}

export const RunPlanSchema = z.object({
  rate_per_second: z.number(),
  duration_seconds: z.number().int(),
  ramp_seconds: z.number().int(),
  mode: GeneratorModeSchema,
  seed: z.number().int().describe("Pass it back with the same parameters to send exactly the same orders again"),
  total_orders: z.number().int().describe("How many orders the whole run sends"),
});

/** One tick of the run, about a second: what was sent and how fast the target answered. */
export const RunIntervalSchema = z.object({
  at_second: z.number().describe("Seconds since the run started, by the clock: a pause or a restart shows as a gap"),
  sent: z.number().int(),
  accepted: z.number().int(),
  rejected: z.number().int(),
  latency_p50_ms: z.number().describe("Median time the target took to answer in this interval; 0 when nothing was sent"),
  latency_p95_ms: z.number(),
});
export type RunInterval = z.infer<typeof RunIntervalSchema>;

export const RunSummarySchema = z.object({
  run_id: z.string(),
  status: RunStatusSchema,
  operator: z.string(),
  started_at: z.string(),
  finished_at: z.string().nullable().describe("null while the run is running"),
  plan: RunPlanSchema,
  sent: z.number().int().describe("Orders answered by the target so far"),
  accepted: z.number().int().describe("Answered 2xx (201 new, 200 already known)"),
  rejected: z.number().int(),
  status_counts: z.record(z.string(), z.number().int()).describe("HTTP status code -> number of orders"),
  current_rate: z.number().describe("Orders per second in the latest interval"),
  rejection_reasons: z.array(z.string()).max(MAX_RUN_REASONS).describe(`The first ${MAX_RUN_REASONS} distinct reasons the target gave for rejecting orders`),
  paused: z
    .object({ since: z.string(), reason: z.string() })
    .nullable()
    .describe("Set while the run waits for an unreachable target instead of flooding it with errors"),
  problem: z.string().nullable().describe("Why the run failed, was interrupted or was stopped"),
  run_url: z.string().describe("A live chart of this run in the browser (approver sign-in)"),
});
export type RunSummary = z.infer<typeof RunSummarySchema>;

export const RunDetailSchema = RunSummarySchema.extend({
  intervals: z.array(RunIntervalSchema).describe("Per-interval counts and the target's latency, oldest first (the most recent ones when the run is long)"),
});
export type RunDetail = z.infer<typeof RunDetailSchema>;
