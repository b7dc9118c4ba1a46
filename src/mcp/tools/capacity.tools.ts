import { z } from "zod/v4";
import { ok } from "../../core/errors";
import { DEFAULT_TOLERANCE, MIN_STEP_ORDERS, MIN_STEP_SECONDS, STEP_PAUSE_SECONDS } from "../../runs/capacity-plan";
import { CapacitySearchSchema } from "../../runs/capacity-schemas";
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
  description: `Finds the highest rate the order API takes while meeting an objective: returns at once with search_id, then runs short steps in the background. The rate doubles from lowest_rate until a step fails, bisects until the gap is within tolerance (default ${DEFAULT_TOLERANCE * 100} %), then a longer step confirms the best passing rate; steps never exceed highest_rate and start after a ${STEP_PAUSE_SECONDS} s pause. A step the generator itself limited ends it inconclusive. It holds the account's traffic while it runs.`,
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
        .describe(`The first step's orders per second: 1 to ${caps.maxRate} (MAX_RUN_RATE)`),
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
});

const getCapacitySearch = defineTool({
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
