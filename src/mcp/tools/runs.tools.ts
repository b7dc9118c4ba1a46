import { z } from "zod/v4";
import { ok } from "../../core/errors";
import { ComparisonSchema } from "../../runs/compare";
import { exportOf, RunExportSchema } from "../../runs/export";
import {
  InvalidShareSchema,
  MAX_STAGES,
  MAX_THRESHOLDS,
  RunDetailSchema,
  type RunSummary,
  RunSummarySchema,
  StageSchema,
  ThresholdSchema,
} from "../../runs/run-schemas";
import type { AccountFixedResource, AccountResource, AccountResourceTemplate } from "../resource-registration";
import { ModeParam, SeedParam } from "./params";
import { type AccountTool, defineTool } from "./tool-registration";

const RunIdParam = z.string().min(1).max(100).describe("Run id returned by start_traffic_run, e.g. R-mx4d...");

const startTrafficRun = defineTool({
  name: "start_traffic_run",
  scope: "traffic:send",
  title: "Start a load test (traffic run)",
  description:
    'Starts a load test against the configured order API in the background and returns at once with a run_id, the seed and the plan. Orders arrive on a schedule (an open model): each leaves at its planned instant whether or not earlier ones were answered, and latency is timed from that instant, so a slow target shows up in the figures instead of slowing the test. Give the load either as rate_per_second with duration_seconds (and an optional ramp_seconds from 0), or as stages, linear between them, for ramp, step and spike profiles. Add thresholds (e.g. {metric:"p99_ms", op:"<", value:300}) and the finished run carries verdict.result passed, failed, or inconclusive (the load generator itself was the limit), with what was measured; abort_on_fail stops it early. invalid_share breaks a share of orders on purpose by rejection reason and checks each comes back rejected for it. The server caps rate (MAX_RUN_RATE), length (MAX_RUN_SECONDS) and orders (MAX_RUN_ORDERS) and refuses, not clamps, anything over them; one run at a time per account unless configured otherwise. The same seed and plan send the same orders. Follow it with get_traffic_run until status is not running; compare_traffic_runs compares with an earlier run.',
  // The advertised bounds are this server's caps, so a model never plans a run it cannot start.
  // They are advertised, not enforced, by the schema: the handler refuses out-of-range values
  // with readable messages (runs/plan.ts), as send_orders does for count.
  input: ({ runs: caps }) =>
    z.object({
      rate_per_second: z
        .number()
        .meta({ exclusiveMinimum: 0, maximum: caps.maxRate })
        .optional()
        .describe(
          `Orders per second once any ramp is over, e.g. 20: more than 0 and at most ${caps.maxRate} (this server's MAX_RUN_RATE). Use with duration_seconds, or use stages instead.`,
        ),
      duration_seconds: z
        .number()
        .int()
        .meta({ minimum: 1, maximum: caps.maxSeconds })
        .optional()
        .describe(
          `With rate_per_second: how long the run lasts, in seconds, ramp included: at least 1 and at most ${caps.maxSeconds} (MAX_RUN_SECONDS). A run may send at most ${caps.maxOrders} orders (MAX_RUN_ORDERS).`,
        ),
      ramp_seconds: z
        .number()
        .int()
        .meta({ minimum: 0, maximum: caps.maxSeconds })
        .optional()
        .describe(
          "With rate_per_second: seconds over which the rate climbs from 0 to rate_per_second, at most duration_seconds; 0 or absent starts at full rate.",
        ),
      stages: z
        .array(StageSchema)
        .max(MAX_STAGES)
        .optional()
        .describe(
          `Instead of rate_per_second: up to ${MAX_STAGES} stages, each {duration_seconds, rate_per_second}; the rate moves linearly from start_rate (or the previous stage's target) to each target. E.g. ramp, hold, spike: [{"duration_seconds":30,"rate_per_second":20},{"duration_seconds":60,"rate_per_second":20},{"duration_seconds":5,"rate_per_second":60}]. Rates at most ${caps.maxRate}, ${caps.maxSeconds} s in all.`,
        ),
      start_rate: z
        .number()
        .min(0)
        .optional()
        .describe("With stages: the rate at the start, in orders per second (default 0)."),
      mode: ModeParam,
      seed: SeedParam,
      thresholds: z
        .array(ThresholdSchema)
        .max(MAX_THRESHOLDS)
        .optional()
        .describe(
          "Conditions the run must meet, checked on the run-wide figures; the verdict lists each with its measured value.",
        ),
      invalid_share: InvalidShareSchema.optional(),
    }),
  output: RunSummarySchema,
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
    "Returns a traffic run: status (running, completed, stopped, aborted, interrupted, failed), orders answered, accepted, rejected (by HTTP status), failed without an answer (errors) and dropped (could not leave on time), the planned and achieved rate (over the schedule's own window), run-wide latency from the scheduled send time over every scheduled order (p50, p90, p95, p99, p99.9, max; latency.lower_bounds names the figures that dropped orders make only lower bounds) beside the service time of the orders sent, whether the generator itself was the limit (generator), what limited the run (limits), the drill's findings, the verdict (passed, failed or inconclusive once it has ended, with each check's measured value) and the latest intervals. Call it again while status is running.",
  input: z.object({ run_id: RunIdParam }),
  output: RunDetailSchema,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async ({ run_id }, context) => context.agent.getTrafficRun(run_id),
});

const stopTrafficRun = defineTool({
  name: "stop_traffic_run",
  scope: "traffic:send",
  title: "Stop a load test",
  description:
    "Stops a running traffic run at once: no further order leaves, and the answers to orders already in flight are still counted. Stopping a run that has already ended changes nothing and returns it as it is.",
  input: z.object({ run_id: RunIdParam }),
  output: RunSummarySchema,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async ({ run_id }, context) => context.agent.stopTrafficRun(run_id),
});

const compareTrafficRuns = defineTool({
  name: "compare_traffic_runs",
  scope: "traffic:read",
  title: "Compare two load tests",
  description:
    "Compares a traffic run with a baseline run of the same account, metric by metric (latency percentiles from the scheduled time, service time, error, rejected and dropped rates, achieved rate): the change, the change in percent, and whether it is a regression, that is worse by more than tolerance_percent of the baseline (and by more than the metric's noise floor). result is regressed or no regression; notes say when the runs had different plans or did not complete.",
  input: z.object({
    run_id: RunIdParam,
    baseline_run_id: RunIdParam.describe("The earlier run to compare against, e.g. the last good run"),
    tolerance_percent: z
      .number()
      .min(0)
      .max(1000)
      .default(10)
      .describe(
        "How much worse than the baseline a metric may get before it counts as a regression, in percent (default 10)",
      ),
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
