import { z } from "zod/v4";
import { ok } from "../core/errors";
import { RunDetailSchema, RunSummarySchema } from "../synth/run-schemas";
import { ModeParam, SeedParam } from "./params";
import { defineTool, type AccountFixedResource, type AccountResource, type AccountResourceTemplate, type AccountTool } from "./tool-seam";

const RunIdParam = z.string().min(1).max(100).describe("Run id returned by start_traffic_run, e.g. R-mx4d...");

const startTrafficRun = defineTool({
  name: "start_traffic_run",
  scope: "traffic:send",
  title: "Start a sustained traffic run",
  description:
    "Starts sending synthetic orders to the configured order API at a steady rate for a while, in the background, and returns at once with a run_id, the seed and what will be sent. Use it for load tests (\"20 orders a second for five minutes, ramping up over the first minute\"); use send_orders for a single batch. The rate climbs linearly from 0 over ramp_seconds, then stays at rate_per_second until duration_seconds. The server caps the rate (MAX_RUN_RATE), the duration (MAX_RUN_SECONDS) and the orders per run (MAX_RUN_ORDERS), and refuses, not clamps, anything over them. One run at a time per account unless configured otherwise. The same seed and parameters always send the same orders; preview_order with that seed shows the first one. Follow it with get_traffic_run; open run_url for a live chart.",
  // The advertised bounds are this server's caps, so a model never plans a run it cannot start.
  // They are advertised, not enforced, by the schema: the handler refuses out-of-range values
  // with readable messages (run-plan.ts), as send_orders does for count.
  input: ({ runs: caps }) =>
    z.object({
      rate_per_second: z
        .number()
        .meta({ exclusiveMinimum: 0, maximum: caps.maxRate })
        .describe(`Orders per second once the ramp is over, e.g. 20: more than 0 and at most ${caps.maxRate} (this server's MAX_RUN_RATE).`),
      duration_seconds: z
        .number()
        .int()
        .meta({ minimum: 1, maximum: caps.maxSeconds })
        .describe(
          `How long the whole run lasts, in seconds, ramp included: at least 1 and at most ${caps.maxSeconds} (MAX_RUN_SECONDS). The whole run may send at most ${caps.maxOrders} orders (MAX_RUN_ORDERS).`,
        ),
      mode: ModeParam,
      seed: SeedParam,
      ramp_seconds: z
        .number()
        .int()
        .meta({ minimum: 0, maximum: caps.maxSeconds })
        .default(0)
        .describe("Seconds over which the rate climbs from 0 to rate_per_second, at most duration_seconds; 0 starts at full rate."),
    }),
  output: RunSummarySchema,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  handler: async (args, context) => context.traffic.startRun(args),
});

const getTrafficRun = defineTool({
  name: "get_traffic_run",
  scope: "traffic:read",
  title: "Check a traffic run",
  description:
    "Returns a traffic run's status (running, completed, stopped, interrupted, failed), how many orders were sent, accepted and rejected (by HTTP status), the current rate, the target's latency p50/p95 for each recent interval, the first distinct rejection reasons, and whether the run is paused because the target is unreachable. Call it again to watch a run; the numbers move while it is running.",
  input: z.object({ run_id: RunIdParam }),
  output: RunDetailSchema,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async ({ run_id }, context) => context.traffic.getRun(run_id),
});

const stopTrafficRun = defineTool({
  name: "stop_traffic_run",
  scope: "traffic:send",
  title: "Stop a traffic run",
  description:
    "Stops a running traffic run at once: no further order is sent. Stopping a run that has already ended changes nothing and returns it as it is.",
  input: z.object({ run_id: RunIdParam }),
  output: RunSummarySchema,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async ({ run_id }, context) => context.traffic.stopRun(run_id),
});

export const runTools: readonly AccountTool[] = [startTrafficRun, getTrafficRun, stopTrafficRun];

const runList: AccountFixedResource = {
  name: "runs",
  scope: "traffic:read",
  uri: "synthetic://runs",
  title: "Traffic runs",
  description: "This account's most recent traffic runs, newest first, each with its status, seed, tally and link to its chart.",
  read: async (context) => {
    const runs = await context.traffic.recentRuns();
    return runs.ok ? ok({ runs: runs.value }) : runs;
  },
};

const oneRun: AccountResourceTemplate = {
  name: "run",
  scope: "traffic:read",
  uriTemplate: "synthetic://runs/{run_id}",
  title: "Traffic run",
  description:
    "One of this account's traffic runs, exactly as get_traffic_run answers it: status, tally, current rate, the target's latency per recent interval, the first rejection reasons and the link to its chart. Another account's run id reads as not found, like an id that never existed.",
  read: async ({ run_id: runId = "" }, context) => context.traffic.getRun(runId),
};

export const runResources: readonly AccountResource[] = [runList, oneRun];
