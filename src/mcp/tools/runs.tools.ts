import { z } from "zod/v4";
import { ok } from "../../core/errors";
import { ComparisonSchema } from "../../runs/compare";
import { exportOf, RunExportSchema } from "../../runs/export";
import { LocationsParam } from "../../runs/locations";
import { DetailSchema, RunPollSchema, runPoll } from "../../runs/run-poll";
import {
  InvalidShareSchema,
  MAX_STAGES,
  MAX_THRESHOLDS,
  type RunSummary,
  RunSummarySchema,
  StageSchema,
  ThresholdSchema,
} from "../../runs/run-schemas";
import type { AccountFixedResource, AccountResource, AccountResourceTemplate } from "../resource-registration";
import { ModeParam, SeedParam } from "./params";
import { type AccountTool, defineTool } from "./tool-registration";

const RunIdParam = z.string().min(1).max(100).describe("Run id from start_traffic_run, e.g. R-mx4d...");

const startTrafficRun = defineTool({
  name: "start_traffic_run",
  scope: "traffic:send",
  title: "Start a load test",
  description:
    "Starts a load test of the order API in the background; returns at once with run_id, seed and plan. Open model: orders leave on schedule whether or not earlier ones were answered; latency counts from the scheduled instant. thresholds decide verdict.result: passed, failed, or inconclusive when the generator was the limit. invalid_share checks that orders broken on purpose are rejected for their reason. One run at a time per account.",
  // The advertised bounds are this server's caps, so a model never plans a run it cannot start.
  // They are advertised, not enforced, by the schema: the handler refuses out-of-range values
  // with readable messages (runs/plan.ts), as send_orders does for count.
  input: ({ runs: caps }) =>
    z.object({
      rate_per_second: z
        .number()
        .meta({ exclusiveMinimum: 0, maximum: caps.maxRate })
        .optional()
        .describe(`Orders per second after any ramp: over 0, at most ${caps.maxRate} (MAX_RUN_RATE).`),
      duration_seconds: z
        .number()
        .int()
        .meta({ minimum: 1, maximum: caps.maxSeconds })
        .optional()
        .describe(
          `Run length in seconds, ramp included: 1 to ${caps.maxSeconds} (MAX_RUN_SECONDS), and at most ${caps.maxOrders} orders (MAX_RUN_ORDERS).`,
        ),
      ramp_seconds: z
        .number()
        .int()
        .meta({ minimum: 0, maximum: caps.maxSeconds })
        .optional()
        .describe("Seconds to climb from 0 to rate_per_second; 0 or absent starts at full rate."),
      stages: z
        .array(StageSchema)
        .max(MAX_STAGES)
        .optional()
        .describe(
          `Instead of rate_per_second: up to ${MAX_STAGES} stages, the rate linear from start_rate to each stage's target in turn (a ramp, then a spike). At most ${caps.maxRate}/s, ${caps.maxSeconds} s in all.`,
        ),
      start_rate: z.number().min(0).optional().describe("With stages: orders per second at the start (default 0)."),
      mode: ModeParam,
      seed: SeedParam,
      thresholds: z
        .array(ThresholdSchema)
        .max(MAX_THRESHOLDS)
        .optional()
        .describe("Conditions on the run-wide figures; the verdict gives each one's measured value."),
      invalid_share: InvalidShareSchema.optional(),
      locations: LocationsParam,
    }),
  output: RunSummarySchema,
  outlineFields: ["run_id", "status", "run_url"],
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  handler: async (args, context) => context.agent.startTrafficRun(args),
  // As a task, the same start; the task's result is the ended run as get_traffic_run answers it (../task-methods.ts).
  async task(args, context) {
    const started = await context.agent.startTrafficRunTask(args);
    if (!started.ok) return started;
    const { task, run } = started.value;
    return ok({ task, statusMessage: runProgress(run) });
  },
});

/** A running run's progress, in words, for a task's status. */
export function runProgress(run: RunSummary): string {
  return `traffic run ${run.run_id} is running: ${run.sent} of ${run.plan.total_orders} orders answered so far`;
}

export const getTrafficRun = defineTool({
  name: "get_traffic_run",
  scope: "traffic:read",
  title: "Check a load test",
  description:
    'Returns a traffic run as a poll: status, accepted, rejected, errors (no answer) and dropped (could not leave on time), planned and achieved rate, latency from the scheduled send time (lower_bounds marks lower bounds), what limited it, the verdict with each check\'s value, and its page. detail "full" adds the plan, drill, generator and intervals.',
  input: z.object({
    run_id: RunIdParam,
    detail: DetailSchema.default("summary").describe('"full" for the whole run, intervals included'),
  }),
  output: RunPollSchema,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async ({ run_id, detail }, context) => {
    const run = await context.agent.getTrafficRun(run_id);
    return run.ok ? ok(runPoll(run.value, detail)) : run;
  },
});

const stopTrafficRun = defineTool({
  name: "stop_traffic_run",
  scope: "traffic:send",
  title: "Stop a load test",
  description:
    "Stops a running traffic run at once: no further order leaves; answers to orders in flight still count. A run that has ended is returned unchanged, as get_traffic_run answers it.",
  input: z.object({ run_id: RunIdParam }),
  output: RunSummarySchema,
  outlineFields: ["run_id", "status", "run_url"],
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async ({ run_id }, context) => context.agent.stopTrafficRun(run_id),
});

const compareTrafficRuns = defineTool({
  name: "compare_traffic_runs",
  scope: "traffic:read",
  title: "Compare two load tests",
  description:
    "Compares a traffic run with a baseline metric by metric (latency, service time, error, rejected, dropped and achieved rates): the change in percent, and whether it regressed beyond tolerance_percent and the metric's noise floor.",
  input: z.object({
    run_id: RunIdParam,
    baseline_run_id: RunIdParam.describe("The earlier run to compare against"),
    tolerance_percent: z
      .number()
      .min(0)
      .max(1000)
      .default(10)
      .describe("How much worse than the baseline a metric may get, in percent, before it regresses (default 10)"),
  }),
  output: ComparisonSchema,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async ({ run_id, baseline_run_id, tolerance_percent }, context) =>
    context.agent.compareTrafficRuns(run_id, baseline_run_id, tolerance_percent),
});

export const runTools: readonly AccountTool[] = [startTrafficRun, getTrafficRun, stopTrafficRun, compareTrafficRuns];

const runList: AccountFixedResource = {
  name: "runs",
  scope: "traffic:read",
  uri: "synthetic://runs",
  title: "Traffic runs",
  description:
    "This account's most recent traffic runs, newest first, each with its status, seed, tally, verdict and link to its chart.",
  read: async (context) => {
    const runs = await context.agent.recentRuns();
    return runs.ok ? ok({ runs: runs.value }) : runs;
  },
};

const oneRun: AccountResourceTemplate = {
  name: "run",
  scope: "traffic:read",
  uriTemplate: "synthetic://runs/{run_id}",
  title: "Traffic run, whole",
  description:
    "One of this account's traffic runs as a whole: its summary as get_traffic_run answers it, plus the run-wide histograms of latency, service time and lateness (bucket bounds in ms and counts, 1 % relative error) for any percentile. Another account's run id reads as not found, like an id that never existed.",
  read: async ({ run_id: runId = "" }, context) => {
    const run = await context.agent.trafficRunRecord(runId);
    return run.ok ? ok(RunExportSchema.parse(exportOf(run.value.summary, run.value.record))) : run;
  },
};

export const runResources: readonly AccountResource[] = [runList, oneRun];
