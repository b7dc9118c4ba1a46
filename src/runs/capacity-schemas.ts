/**
 * A capacity search's contract: what start_capacity_search plans, what the
 * account's object stores per search, and what get_capacity_search answers.
 * Each step of a search is a traffic run of its own; a step's figures are
 * read off that run's summary, so they mean exactly what a run's mean.
 */
import { z } from "zod/v4";
import { GeneratorModeSchema } from "../synth/generators";
import { LocationSchema } from "./locations";
import { RunStatusSchema, ThresholdSchema } from "./run-schemas";

export const SearchStatusSchema = z.enum(["running", "completed", "inconclusive", "stopped", "failed"]);
export type SearchStatus = z.infer<typeof SearchStatusSchema>;

export const StepPhaseSchema = z
  .enum(["warm-up", "grow", "narrow", "confirm"])
  .describe(
    "warm-up: once, before the first step, at the lowest rate, not judged; grow: the rate doubles until a step fails; narrow: halfway between the best pass and the lowest fail; confirm: the best passing rate again, over a longer step",
  );
export type StepPhase = z.infer<typeof StepPhaseSchema>;

export const SearchOutcomeSchema = z
  .enum(["found", "above_cap", "below_lowest"])
  .describe(
    "found: the knee lies between highest_passing_rate and lowest_failing_rate; above_cap: even highest_rate met the objective, so the knee is above it and was not found; below_lowest: even lowest_rate failed",
  );
export type SearchOutcome = z.infer<typeof SearchOutcomeSchema>;

export const CapacityPlanSchema = z.object({
  objective: z.array(ThresholdSchema).describe("The thresholds every judged step must meet"),
  lowest_rate: z.number().describe("The first step's rate, orders per second"),
  highest_rate: z.number().describe("No step goes above this rate (within MAX_RUN_RATE)"),
  tolerance: z
    .number()
    .describe("The search narrows until lowest_failing_rate - highest_passing_rate <= tolerance x it"),
  step_seconds: z.number().int().describe("How long each grow and narrow step sends"),
  confirm_seconds: z.number().int().describe("How long the confirming step sends: three steps' worth, within the caps"),
  warmup_seconds: z.number().int().describe("How long the unjudged warm-up at lowest_rate sends; 0 for none"),
  pause_seconds: z.number().int().describe("The quiet pause between steps, so each starts from an idle target"),
  mode: GeneratorModeSchema,
  seed: z.number().int().describe("Step i sends with seed + i: the same parameters and seed replay the same orders"),
  max_steps: z.number().int().describe("The search ends after this many judged steps, whatever it knows by then"),
  locations: z.array(LocationSchema).optional().describe("Load zones every step's shards are created in"),
});
export type CapacityPlan = z.infer<typeof CapacityPlanSchema>;

/** What a finished step's run showed; null while the run is going. */
export const StepResultSchema = z.object({
  status: RunStatusSchema,
  verdict: z.enum(["passed", "failed", "inconclusive"]).nullable(),
  achieved_rate: z.number(),
  p50_ms: z.number(),
  p99_ms: z.number(),
  lower_bounds: z.array(z.string()),
  error_rate: z.number(),
  dropped_rate: z.number(),
  failed: z.array(z.string()),
  /** The checks the run failed, in the verdict's order (the objective's first). */
  broke: z.array(z.object({ check: z.string(), measured: z.number().nullable(), at_least: z.boolean() })),
  inconclusive_reason: z.string().nullable(),
  problem: z.string().nullable(),
});
export type StepResult = z.infer<typeof StepResultSchema>;

export const StepRecordSchema = z.object({
  phase: StepPhaseSchema,
  rate_per_second: z.number(),
  duration_seconds: z.number().int(),
  run_id: z.string(),
  result: StepResultSchema.nullable(),
});
export type StepRecord = z.infer<typeof StepRecordSchema>;

export const SearchRecordSchema = z.object({
  search_id: z.string(),
  status: SearchStatusSchema,
  operator: z.string(),
  started_at: z.string(),
  finished_at: z.string().nullable(),
  plan: CapacityPlanSchema,
  steps: z.array(StepRecordSchema),
  /** The next step, due once the pause after the last one is over. */
  pending: z.object({ phase: StepPhaseSchema, rate_per_second: z.number(), at_ms: z.number() }).nullable(),
  problem: z.string().nullable(),
});
export type SearchRecord = z.infer<typeof SearchRecordSchema>;

export const SearchStepSchema = z.object({
  phase: StepPhaseSchema,
  rate_per_second: z.number().describe("The step's planned rate, orders per second"),
  duration_seconds: z.number().int(),
  run_id: z.string().describe("The step's own traffic run (get_traffic_run reads it whole)"),
  run_url: z.string(),
  status: RunStatusSchema,
  verdict: z
    .enum(["passed", "failed", "inconclusive"])
    .nullable()
    .describe("The step run's verdict against the objective; null while it runs, and for the warm-up"),
  achieved_rate: z.number(),
  p50_ms: z.number().describe("Median latency from the scheduled send time"),
  p99_ms: z.number(),
  lower_bounds: z
    .array(z.string())
    .describe('Of p50_ms and p99_ms, those that are only lower bounds (dropped orders), e.g. ["p99_ms"]'),
  error_rate: z.number().describe("Share of orders with no answer or a 5xx"),
  dropped_rate: z.number().describe("Share of scheduled orders that could not leave in time"),
  failed: z.array(z.string()).describe("One sentence per check the step failed"),
  broke: StepResultSchema.shape.broke.describe(
    "The checks the step failed, the objective's first, with what was measured (at_least: only a lower bound)",
  ),
  inconclusive_reason: z.string().nullable(),
});
export type SearchStep = z.infer<typeof SearchStepSchema>;

export const CapacitySearchSchema = z.object({
  search_id: z.string(),
  status: SearchStatusSchema.describe(
    "running; completed (outcome says what was found); inconclusive (the generator, not the target, was the limit at some step: problem says what to change); stopped; failed (a step could not run: problem)",
  ),
  operator: z.string(),
  started_at: z.string(),
  finished_at: z.string().nullable(),
  plan: CapacityPlanSchema,
  answer: z.string().describe("One sentence to repeat to a person: what the target holds, and what happened above it"),
  advice: z
    .string()
    .nullable()
    .describe(
      "What to change to learn more (above the cap, below the lowest rate, inconclusive, failed): the setting or the call argument, with a value; null when the answer is whole",
    ),
  outcome: SearchOutcomeSchema.nullable().describe("null until the search has completed"),
  highest_passing_rate: z.number().nullable().describe("The highest rate that met the objective so far"),
  lowest_failing_rate: z.number().nullable().describe("The lowest rate that did not, above it"),
  tolerance: z.number(),
  broke_first: z
    .string()
    .nullable()
    .describe("The check that failed at lowest_failing_rate, e.g. p99_ms < 300 (the first, if several did)"),
  steps: z.array(SearchStepSchema).describe("Every step so far, in the order they ran"),
  next_step: z
    .object({ phase: StepPhaseSchema, rate_per_second: z.number(), at: z.string() })
    .nullable()
    .describe("The step that starts once the pause after the last one is over"),
  problem: z.string().nullable().describe("Why the search is inconclusive, stopped or failed"),
  search_url: z.string().describe("A live chart of latency against rate, one point per step (approver sign-in)"),
});
export type CapacitySearch = z.infer<typeof CapacitySearchSchema>;
