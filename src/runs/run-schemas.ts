/**
 * A traffic run's contract: what start_traffic_run plans, what each shard
 * reports, and what get_traffic_run answers. The account's object stores
 * these shapes and the tools describe their output with them.
 */
import { z } from "zod/v4";
import { type RejectionReason, RejectionReasonSchema } from "../orders/rejections";
import { GeneratorModeSchema } from "../synth/generators";
import { GeneratorHealthSchema } from "./generator-health";
import { HistogramSchema, LatencyFiguresSchema } from "./histogram";
import { LocationFiguresSchema, LocationSchema } from "./locations";
import { MetricNameSchema } from "./metrics";
import { ScheduledLatencySchema } from "./scheduled-latency";

export const RunStatusSchema = z.enum(["running", "completed", "stopped", "aborted", "interrupted", "failed"]);
export type RunStatus = z.infer<typeof RunStatusSchema>;

export const MAX_RUN_REASONS = 5;
export const MAX_FINDINGS = 5;
export const MAX_STAGES = 20;
export const MAX_THRESHOLDS = 20;

/** The run page draws at most this many points, however long the run: a light page that refreshes every 2 s. */
export const CHART_POINTS = 240;

/** How many seconds of a run one stored chart point covers: 1 for runs up to CHART_POINTS seconds. */
export function chartBucketSeconds(durationSeconds: number): number {
  return Math.max(1, Math.ceil(durationSeconds / CHART_POINTS));
}

// Strict, as every object a tool takes: a key the schema does not know (a URL, a host) is refused, not ignored.
export const StageSchema = z.strictObject({
  duration_seconds: z.number().int().describe("Whole seconds, at least 1"),
  rate_per_second: z.number().describe("Orders per second reached at the stage's end"),
});
export type Stage = z.infer<typeof StageSchema>;

export const ComparisonSchema = z.enum(["<", "<=", ">", ">="]);
export type Comparison = z.infer<typeof ComparisonSchema>;

export const ThresholdSchema = z.strictObject({
  metric: MetricNameSchema,
  op: ComparisonSchema,
  value: z.number().describe("ms, or 0..1 for rates"),
  abort_on_fail: z.boolean().default(false).describe("Stop the run once it fails"),
  grace_seconds: z.number().int().min(0).default(0).describe("Seconds abort_on_fail waits"),
});
export type Threshold = z.infer<typeof ThresholdSchema>;

/** One optional share per rejection reason, so a model sees every reason it may ask for by name. */
export const InvalidShareSchema = z
  .strictObject(
    Object.fromEntries(RejectionReasonSchema.options.map((reason) => [reason, z.number().optional()])) as Record<
      RejectionReason,
      z.ZodOptional<z.ZodNumber>
    >,
  )
  .describe('Share (0..1) of orders broken on purpose per rejection reason, e.g. {"out_of_stock":0.05}');
export type InvalidShare = z.infer<typeof InvalidShareSchema>;

export const RunPlanSchema = z.object({
  start_rate: z.number().describe("Orders per second at the start"),
  stages: z.array(StageSchema),
  duration_seconds: z.number().int().describe("The stages' total length"),
  peak_rate: z.number().describe("The highest rate any stage reaches"),
  mode: GeneratorModeSchema,
  seed: z.number().int().describe("Pass it back with the same parameters to send exactly the same orders again"),
  total_orders: z.number().int().describe("How many orders the whole run schedules"),
  invalid_share: InvalidShareSchema,
  thresholds: z.array(ThresholdSchema),
  shards: z.number().int().describe("Generator objects sending this run's orders, each every shards-th order"),
  max_in_flight: z
    .number()
    .int()
    .describe(
      "Requests one shard keeps in flight at most (MAX_IN_FLIGHT, and at most the 6 a Cloudflare invocation may have waiting for headers)",
    ),
  locations: z
    .array(LocationSchema)
    .optional()
    .describe(
      "Load zones the shards were created in, shard i in locations[i mod n]; absent: wherever the platform chose",
    ),
  expected_service_ms: z
    .number()
    .int()
    .default(100)
    .describe(
      "The service time the fan-out is sized for (RUN_EXPECTED_SERVICE_MS): shards hold peak rate x this many ms in flight",
    ),
  max_lateness_ms: z
    .number()
    .int()
    .describe("An order that cannot leave this long after its scheduled time is dropped (RUN_MAX_LATENESS_MS)"),
});
export type RunPlan = z.infer<typeof RunPlanSchema>;

export const DrillTallySchema = z.object({
  sent: z.number().int().describe("Invalid orders of this reason that were answered"),
  as_expected: z.number().int().describe("Rejected, naming this reason"),
  mismatched: z.number().int().describe("Accepted, or rejected for something else: a finding"),
});

/**
 * Cumulative figures of one shard, or of a whole run once its shards are
 * added up; an interval is the difference of two of these.
 */
export const FiguresSchema = z.object({
  launched: z.number().int(),
  answered: z.number().int(),
  accepted: z.number().int(),
  rejected: z.number().int(),
  errors: z.number().int(),
  dropped: z.number().int(),
  /** Of dropped, those the generator dropped while a request slot was free (figures stored before count 0). */
  dropped_generator: z.number().int().default(0),
  /** Observations in `latency` that are dropped orders at their wait so far (lower bounds). */
  censored: z.number().int().default(0),
  status_counts: z.record(z.string(), z.number().int()),
  rejection_reasons: z.array(z.string()),
  drill: z.partialRecord(RejectionReasonSchema, DrillTallySchema),
  findings: z.array(z.string()),
  latency: HistogramSchema,
  service: HistogramSchema,
  lateness: HistogramSchema,
  /** The generator's own delay: how late it handed orders to fetch while a slot was free, and its own drops. */
  delay: HistogramSchema.default({ buckets: {}, zeros: 0, count: 0, max_ms: 0 }),
  /**
   * Of dropped_generator, those dropped while every connection was taken by a target answering within the service
   * time the fan-out was sized for: the fan-out (the platform's connections per invocation) held them, not the target.
   */
  dropped_fanout: z.number().int().default(0),
  /** Answers the generator's busy event loop took late: their service time includes that wait. */
  answers_waited: z.number().int().default(0),
  /** Orders sent after the schedule's last instant: late, outside its window. */
  sent_after_schedule: z.number().int().default(0),
  /** How late the generator's own timer fired at each wake: its isolate's event-loop lag. */
  loop_lag: HistogramSchema.default({ buckets: {}, zeros: 0, count: 0, max_ms: 0 }),
  /** Service time of the answers taken on time (not waited): the target's own, with no generator wait in it. */
  service_unwaited: HistogramSchema.default({ buckets: {}, zeros: 0, count: 0, max_ms: 0 }),
  max_in_flight: z.number().int(),
  /** Milliseconds spent paused for an unreachable target. */
  paused_ms: z.number(),
});
export type Figures = z.infer<typeof FiguresSchema>;

/** One second or so of a run: what was answered in it and how fast. Its fields, in this order, are the CSV's columns. */
export const RunIntervalSchema = z.object({
  at_second: z.number().describe("Seconds since the run started, by the clock: a pause or a restart shows as a gap"),
  seconds: z
    .number()
    .default(1)
    .describe("The interval's real length in seconds: a rate is a count of this interval divided by it"),
  planned_rate: z.number().describe("Orders per second the plan asked for at this moment"),
  sent: z.number().describe("Orders answered in this interval"),
  accepted: z.number(),
  rejected: z.number(),
  errors: z.number().describe("Orders that got no answer (unreachable, timed out)"),
  dropped: z.number().describe("Orders that could not leave within the allowed lateness"),
  dropped_generator: z
    .number()
    .default(0)
    .describe("Of dropped, those the generator dropped while a request slot was free; the rest the target held back"),
  in_flight: z.number().int().describe("Requests in flight at the end of the interval"),
  latency_p50_ms: z.number().describe("Median latency from the scheduled send time; 0 when nothing was answered"),
  latency_p95_ms: z.number(),
  latency_p99_ms: z.number(),
  service_p99_ms: z.number().describe("99th percentile service time, from the moment each order left"),
  generator_delay_ms: z
    .number()
    .default(0)
    .describe("99th percentile of how late the generator itself handed orders to fetch in this interval"),
});
export type RunInterval = z.infer<typeof RunIntervalSchema>;

export const CheckSchema = z.object({
  check: z.string().describe('What was checked, e.g. "p99_ms < 300"'),
  measured: z.number().nullable(),
  at_least: z
    .boolean()
    .describe(
      "true when measured is a lower bound (too many orders were dropped to know the percentile): the check passes only if the bound alone proves it",
    ),
  passed: z.boolean(),
});

export const VerdictSchema = z.object({
  result: z
    .enum(["passed", "failed", "inconclusive"])
    .nullable()
    .describe(
      "null while the run is still going; passed only if every check held; inconclusive when checks failed while the generator itself was the limit (see inconclusive_reason), so the run says nothing about the target",
    ),
  inconclusive_reason: z
    .string()
    .nullable()
    .describe("Set when result is inconclusive: how the generator limited the run, and what to change"),
  checks: z
    .array(CheckSchema)
    .describe(
      "Each threshold, the drill's expectations and whether the planned load was applied, with what was measured",
    ),
  failed: z.array(z.string()).describe("One sentence per check that failed, with its measured value"),
});
export type Verdict = z.infer<typeof VerdictSchema>;

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
  errors: z.number().int().describe("Orders that got no answer: unreachable or timed out"),
  dropped: z
    .number()
    .int()
    .describe("Orders that could not leave within max_lateness_ms of their scheduled time, so were not sent"),
  status_counts: z.record(z.string(), z.number().int()).describe("HTTP status code -> number of orders"),
  current_rate: z.number().describe("Orders answered per second in the latest interval; 0 once the run has ended"),
  planned_rate: z
    .number()
    .describe(
      "Orders per second the plan asks for: at this moment while the run is running; once it has ended, the plan's rate over its whole schedule (first scheduled instant to last)",
    ),
  achieved_rate: z
    .number()
    .describe(
      "Orders that left for the target per second, over the schedule's own window so far (first scheduled instant to the latest that has come; start-up and drain left out): the plan's rate over that window times the share not dropped",
    ),
  in_flight: z.number().int().describe("Requests in flight now, over all shards"),
  latency: ScheduledLatencySchema.describe(
    "Run-wide latency from each order's scheduled send time over every scheduled order: queueing included, and dropped orders counted at their wait so far (see lower_bounds)",
  ),
  service: LatencyFiguresSchema.describe(
    "Run-wide service time of the orders that were sent only, from the moment each was handed to fetch to its answer",
  ),
  lateness: LatencyFiguresSchema.describe(
    "How late the orders that were sent were handed to fetch after their scheduled time",
  ),
  generator: GeneratorHealthSchema.describe("The generator's own health: whether it, not the target, limited the run"),
  rejection_reasons: z
    .array(z.string())
    .max(MAX_RUN_REASONS)
    .describe(`The first ${MAX_RUN_REASONS} distinct reasons the target gave for rejecting orders`),
  drill: z
    .partialRecord(RejectionReasonSchema, DrillTallySchema)
    .describe("Per rejection reason asked for in invalid_share: how the target answered those orders"),
  findings: z
    .array(z.string())
    .max(MAX_FINDINGS)
    .describe("Drill orders the target did not reject as expected (the first few)"),
  limits: z
    .array(z.string())
    .describe("What limited the run, in plain words: the generator, the in-flight cap, late orders"),
  verdict: VerdictSchema,
  paused: z
    .object({ since: z.string(), reason: z.string() })
    .nullable()
    .describe("Set while the run waits for an unreachable target instead of flooding it with errors"),
  problem: z.string().nullable().describe("Why the run failed, was aborted, interrupted or stopped"),
  run_url: z.string().describe("A live chart of this run in the browser (approver sign-in), with export links"),
  locations: z
    .array(LocationFiguresSchema)
    .optional()
    .describe(
      "Only for a run started with locations: each load zone's figures beside the whole; the counts add up to it",
    ),
});
export type RunSummary = z.infer<typeof RunSummarySchema>;

export const RunDetailSchema = RunSummarySchema.extend({
  intervals: z
    .array(RunIntervalSchema)
    .describe("Per-interval counts and latency, oldest first (the most recent ones when the run is long)"),
});
export type RunDetail = z.infer<typeof RunDetailSchema>;
