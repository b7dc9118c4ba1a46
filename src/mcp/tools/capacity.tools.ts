import { z } from "zod/v4";
import { ok } from "../../core/errors";
import { DEFAULT_TOLERANCE, MIN_STEP_ORDERS, MIN_STEP_SECONDS, STEP_PAUSE_SECONDS } from "../../runs/capacity-plan";
import { type CapacitySearch, CapacitySearchSchema } from "../../runs/capacity-schemas";
import { MAX_THRESHOLDS, ThresholdSchema } from "../../runs/run-schemas";
import { ModeParam, SeedParam } from "./params";
import { type AccountTool, defineTool } from "./tool-registration";

const SearchIdParam = z
  .string()
  .min(1)
  .max(100)
  .describe("Search id returned by start_capacity_search, e.g. S-mx4d...");

const startCapacitySearch = defineTool({
  name: "start_capacity_search",
  scope: "traffic:send",
  title: "Find how much load the order API can take (capacity search)",
  description: `Answers "how many orders a second can the order API take while meeting an objective?" in one call: returns at once with a search_id and a search_url, then runs in the background as a series of short open-model traffic runs (steps) against the configured order API. It starts at lowest_rate and doubles the rate until a step fails the objective (thresholds, as for start_traffic_run, e.g. {metric:"p99_ms", op:"<", value:300}), then halves the interval between the best passing and the lowest failing rate until it is narrower than tolerance (default ${DEFAULT_TOLERANCE * 100} %), then runs the best passing rate once more over a longer step to confirm it. Each step starts from a quiet target (${STEP_PAUSE_SECONDS} s pause). No step goes above highest_rate, within MAX_RUN_RATE. A step where the load generator itself was the limit ends the search inconclusive, saying what to change, instead of blaming the target. While it runs, the search holds the account's traffic: no run or other search may start. Follow it with get_capacity_search until status is not running; stop_capacity_search stops it.`,
  // Bounds are advertised from this server's caps and refused with readable sentences by the handler
  // (runs/capacity-plan.ts).
  input: ({ runs: caps }) =>
    z.object({
      objective: z
        .array(ThresholdSchema)
        .max(MAX_THRESHOLDS)
        .describe(
          'The service-level objective every step must meet, as thresholds on the run metrics, e.g. [{"metric":"p99_ms","op":"<","value":300},{"metric":"error_rate","op":"<","value":0.01}]',
        ),
      lowest_rate: z
        .number()
        .meta({ minimum: 1, maximum: caps.maxRate })
        .describe(`The first step's rate in orders per second: at least 1 and at most ${caps.maxRate} (MAX_RUN_RATE)`),
      highest_rate: z
        .number()
        .meta({ minimum: 1, maximum: caps.maxRate })
        .describe(
          `No step goes above this rate: at least lowest_rate and at most ${caps.maxRate} (MAX_RUN_RATE). If it still meets the objective, the answer says the knee is above it.`,
        ),
      step_seconds: z
        .number()
        .int()
        .meta({ minimum: MIN_STEP_SECONDS, maximum: caps.maxSeconds })
        .default(10)
        .describe(
          `How long each step sends, default 10: at least ${MIN_STEP_SECONDS} s, and long enough for ${MIN_STEP_ORDERS} orders at lowest_rate (a p99 over fewer is only the slowest order). The confirming step is three times as long, within MAX_RUN_SECONDS.`,
        ),
      warmup_seconds: z
        .number()
        .int()
        .meta({ minimum: 0, maximum: caps.maxSeconds })
        .optional()
        .describe("Seconds of load at lowest_rate before the first step, not judged (default 0: no warm-up)"),
      tolerance: z
        .number()
        .meta({ exclusiveMinimum: 0, exclusiveMaximum: 1 })
        .optional()
        .describe(
          `How narrow the answer must be, as a share of the passing rate: the search stops narrowing once lowest_failing_rate - highest_passing_rate <= tolerance x highest_passing_rate. Between 0 and 1, default ${DEFAULT_TOLERANCE}`,
        ),
      mode: ModeParam,
      seed: SeedParam.describe(
        "Generator seed; step i sends with seed + i, so the same search replays the same orders",
      ),
    }),
  output: CapacitySearchSchema,
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
    "Returns a capacity search: status (running, completed, inconclusive, stopped, failed), answer (one sentence to repeat, e.g. the order API holds 75 orders/s with p99 under 300 ms; at 85 orders/s p99 reached 2.1 s), outcome (found, above_cap when even highest_rate met the objective, below_lowest), highest_passing_rate and lowest_failing_rate with the tolerance, broke_first (the check that failed at the lowest failing rate), and every step with its phase, rate, duration, run_id, p50/p99 latency (lower_bounds marks figures that dropped orders make lower bounds), error and dropped rates and verdict. Call it again while status is running.",
  input: z.object({ search_id: SearchIdParam }),
  output: CapacitySearchSchema,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async ({ search_id }, context) => context.agent.getCapacitySearch(search_id),
});

const stopCapacitySearch = defineTool({
  name: "stop_capacity_search",
  scope: "traffic:send",
  title: "Stop a capacity search",
  description:
    "Stops a running capacity search at once: its current step's run is stopped, no further step starts, and the account's traffic is free again. The answer keeps what the finished steps showed. Stopping a search that has already ended changes nothing and returns it as it is.",
  input: z.object({ search_id: SearchIdParam }),
  output: CapacitySearchSchema,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async ({ search_id }, context) => context.agent.stopCapacitySearch(search_id),
});

export const capacityTools: readonly AccountTool[] = [startCapacitySearch, getCapacitySearch, stopCapacitySearch];
