import { z } from "zod/v4";
import { ok } from "../../core/errors";
import { DEFAULT_TOLERANCE, MIN_STEP_ORDERS, MIN_STEP_SECONDS, STEP_PAUSE_SECONDS } from "../../runs/capacity-plan";
import { type CapacitySearch, CapacitySearchSchema } from "../../runs/capacity-schemas";
import { LocationsParam } from "../../runs/locations";
import { DetailSchema, SearchPollSchema, searchPoll } from "../../runs/run-poll";
import { MAX_THRESHOLDS, ThresholdSchema } from "../../runs/run-schemas";
import { ModeParam, SeedParam } from "./params";
import { type AccountTool, defineTool } from "./tool-registration";

const SearchIdParam = z.string().min(1).max(100).describe("Search id from start_capacity_search, e.g. S-mx4d...");

/** get_capacity_search's listing outlines the whole search; the tools that start and stop one name these. */
const SEARCH_OUTLINE = ["search_id", "status", "answer", "search_url"] as const;

const startCapacitySearch = defineTool({
  name: "start_capacity_search",
  scope: "traffic:send",
  title: "Find the order API's capacity",
  description: `Finds the highest rate the order API takes while meeting an objective; returns at once with search_id. Steps ${STEP_PAUSE_SECONDS} s apart double the rate from lowest_rate until one fails, bisect to within tolerance (default ${DEFAULT_TOLERANCE * 100} %), then a longer step confirms the best rate; none exceeds highest_rate. A step the generator limited ends it inconclusive. It holds the account's traffic while it runs.`,
  // Bounds are advertised from this server's caps and refused with readable sentences by the handler
  // (runs/capacity-plan.ts).
  input: ({ runs: caps }) =>
    z.object({
      objective: z
        .array(ThresholdSchema)
        .max(MAX_THRESHOLDS)
        .describe('Thresholds every step must meet, e.g. [{"metric":"p99_ms","op":"<","value":300}]'),
      lowest_rate: z
        .number()
        .meta({ minimum: 1, maximum: caps.maxRate })
        .describe(`First step's orders/s: 1 to ${caps.maxRate} (MAX_RUN_RATE)`),
      highest_rate: z
        .number()
        .meta({ minimum: 1, maximum: caps.maxRate })
        .describe(`No step goes above it: lowest_rate to ${caps.maxRate}`),
      step_seconds: z
        .number()
        .int()
        .meta({ minimum: MIN_STEP_SECONDS, maximum: caps.maxSeconds })
        .default(10)
        .describe(
          `Seconds per step (default 10): at least ${MIN_STEP_SECONDS} and enough for ${MIN_STEP_ORDERS} orders at lowest_rate; the confirming step is 3x`,
        ),
      warmup_seconds: z
        .number()
        .int()
        .meta({ minimum: 0, maximum: caps.maxSeconds })
        .optional()
        .describe("Unjudged seconds at lowest_rate before the first step (default 0)"),
      tolerance: z
        .number()
        .meta({ exclusiveMinimum: 0, exclusiveMaximum: 1 })
        .optional()
        .describe(
          `Stop narrowing once lowest_failing_rate - highest_passing_rate <= tolerance x highest_passing_rate; 0 to 1, default ${DEFAULT_TOLERANCE}`,
        ),
      mode: ModeParam,
      seed: SeedParam.describe("Generator seed; step i sends with seed + i"),
      locations: LocationsParam,
    }),
  output: CapacitySearchSchema,
  outlineFields: SEARCH_OUTLINE,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  handler: async (args, context) => context.agent.startCapacitySearch(args),
  // As a task, the same start; the task's result is the ended search as get_capacity_search answers it.
  async task(args, context) {
    const started = await context.agent.startCapacitySearchTask(args);
    if (!started.ok) return started;
    const { task, search } = started.value;
    return ok({ task, statusMessage: searchProgress(search) });
  },
});

/** A running search's progress, in words, for a task's status. */
export function searchProgress(search: CapacitySearch): string {
  const steps = search.steps.length;
  return `capacity search ${search.search_id} is running: ${steps} step${steps === 1 ? "" : "s"} finished; ${search.answer}`;
}

export const getCapacitySearch = defineTool({
  name: "get_capacity_search",
  scope: "traffic:read",
  title: "Check a capacity search",
  description:
    'Returns a capacity search as a poll: status, answer (one sentence to repeat), advice (what to change to learn more, or null), outcome (found, above_cap when even highest_rate met the objective, below_lowest), highest_passing_rate and lowest_failing_rate, broke_first (the check that failed first) and the latest steps. detail "full" adds the plan and every step\'s figures.',
  input: z.object({
    search_id: SearchIdParam,
    detail: DetailSchema.default("summary").describe('"full" for the whole search, every step included'),
  }),
  output: SearchPollSchema,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async ({ search_id, detail }, context) => {
    const search = await context.agent.getCapacitySearch(search_id);
    return search.ok ? ok(searchPoll(search.value, detail)) : search;
  },
});

const stopCapacitySearch = defineTool({
  name: "stop_capacity_search",
  scope: "traffic:send",
  title: "Stop a capacity search",
  description:
    "Stops a running capacity search at once: its current step stops, no further step starts and the account's traffic is free. The answer keeps the finished steps; a search that has ended is returned unchanged.",
  input: z.object({ search_id: SearchIdParam }),
  output: CapacitySearchSchema,
  outlineFields: SEARCH_OUTLINE,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async ({ search_id }, context) => context.agent.stopCapacitySearch(search_id),
});

export const capacityTools: readonly AccountTool[] = [startCapacitySearch, getCapacitySearch, stopCapacitySearch];
