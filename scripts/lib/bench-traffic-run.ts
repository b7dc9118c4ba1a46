// The traffic run's figures in `npm run bench`, held to the floor's
// object -> binding -> D1 rate like send_orders: the rate one generator
// object sustains when offered more than it can send, and whether it sends
// 0.85 of the floor's rate on schedule with nothing dropped.
import type { Project } from "./bench-targets.ts";

/** The dev server's run caps for the bench: one object (one shard), a rate above anything this machine reaches. */
export const RUN_VARS: Readonly<Record<string, string>> = {
  MAX_RUN_RATE: "5000",
  MAX_RUN_ORDERS: "100000",
  RUN_SHARD_RATE: "10000",
  MAX_RUN_SHARDS: "1",
  // As many in flight as the floor's object keeps, so the ratio compares the same load: the floor is not held to the
  // platform's 6 connections per invocation, so neither is this one object (npm run bench:generator is, with the
  // fan-out the plan sizes), and its fan-out is not sized for a service time.
  MAX_IN_FLIGHT: "8",
  PLATFORM_LIMITS: "off",
  RUN_EXPECTED_SERVICE_MS: "1",
  // The bench measures throughput, not the account's budget of synthetic orders.
  SYNTH_ORDERS_PER_MINUTE: "1000000",
};

export interface TrafficRunFigure {
  /** Orders accepted per second over the run's whole intervals, the first and last left out. */
  readonly ordersPerSecond: number;
  /** Orders that could not leave within the allowed lateness. */
  readonly dropped: number;
  readonly planned: number;
  readonly accepted: number;
  readonly limits: readonly string[];
}

interface RunAnswer {
  run_id?: string;
  status?: string;
  accepted?: number;
  dropped?: number;
  errors?: number;
  rejected?: number;
  limits?: string[];
  plan?: { total_orders?: number };
  intervals?: { at_second: number; accepted: number }[];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Its intervals' accepted orders over the time they span, leaving out the
 * first (the start) and the last (the tail after the plan ended); a run too
 * short for that is judged on all of it.
 */
function sustainedRate(run: RunAnswer, seconds: number): number {
  const intervals = [...(run.intervals ?? [])].sort((a, b) => a.at_second - b.at_second);
  if (intervals.length < 4) return (run.accepted ?? 0) / seconds;
  const inner = intervals.slice(1, -1);
  const span = (inner.at(-1)?.at_second ?? 0) - (intervals[0]?.at_second ?? 0);
  const accepted = inner.reduce((sum, interval) => sum + interval.accepted, 0);
  return span > 0 ? accepted / span : Number.NaN;
}

/** Starts a run at `rate` for `seconds`, waits until it has ended and reads its figures. */
export async function trafficRunFigure(project: Project, rate: number, seconds: number): Promise<TrafficRunFigure> {
  const started = (await project.tool("start_traffic_run", {
    rate_per_second: Math.round(rate),
    duration_seconds: seconds,
    seed: Math.floor(Math.random() * 4_000_000_000),
  })) as RunAnswer;
  if (!started.run_id)
    throw new Error(`start_traffic_run answered no run_id: ${JSON.stringify(started).slice(0, 300)}`);
  let run = started;
  for (const deadline = Date.now() + (seconds + 30) * 1000; run.status === "running" && Date.now() < deadline; ) {
    await sleep(500);
    run = (await project.tool("get_traffic_run", { run_id: started.run_id, detail: "full" })) as RunAnswer;
  }
  if (run.status === "running")
    throw new Error(`traffic run ${started.run_id} still running ${seconds + 30} s after it started`);
  if ((run.errors ?? 0) > 0 || (run.rejected ?? 0) > 0) {
    throw new Error(
      `traffic run ${started.run_id}: ${run.errors} errors, ${run.rejected} rejected; ${run.limits?.join("; ")}`,
    );
  }
  return {
    ordersPerSecond: sustainedRate(run, seconds),
    dropped: run.dropped ?? 0,
    planned: run.plan?.total_orders ?? 0,
    accepted: run.accepted ?? 0,
    limits: run.limits ?? [],
  };
}
