/**
 * A capacity search as the caller asks for it, checked against the same caps
 * as a traffic run and turned into a plan. Every step is planned as a run
 * (planRun), so a search can never ask of a step what a run could not do.
 * Every refusal says what to change.
 */
import { fail, ok, type Result } from "../core/errors";
import type { GeneratorMode } from "../synth/generators";
import { MAX_SEED } from "../synth/prng";
import type { CapacityPlan, StepPhase } from "./capacity-schemas";
import type { Location } from "./locations";
import { planRun, type RunCaps, type RunRequest } from "./plan";
import { MAX_THRESHOLDS, type Threshold } from "./run-schemas";

export interface SearchRequest {
  readonly objective: readonly Threshold[];
  readonly lowest_rate: number;
  readonly highest_rate: number;
  readonly step_seconds: number;
  readonly warmup_seconds?: number | undefined;
  readonly tolerance?: number | undefined;
  readonly mode: GeneratorMode;
  readonly seed?: number | undefined;
  readonly locations?: readonly Location[] | undefined;
}

export const DEFAULT_TOLERANCE = 0.1;
/** The run is read once a second: a shorter step would be judged mostly on its start-up. */
export const MIN_STEP_SECONDS = 5;
/** A p99 over fewer orders than this is only the slowest of them. */
export const MIN_STEP_ORDERS = 100;
/** Between two steps, so each starts from a quiet target: whatever the last one left queued drains first. */
export const STEP_PAUSE_SECONDS = 3;
/** The confirming step sends this many steps' worth, so a slow build-up at the best rate still shows. */
export const CONFIRM_FACTOR = 3;
/** Doubling from 1 to 1000 is 11 steps and narrowing to 1 % about 7 more: room for both and a failed confirm. */
export const MAX_SEARCH_STEPS = 24;

/** The shortest step that measures at `lowestRate`: MIN_STEP_ORDERS orders, and never under MIN_STEP_SECONDS. */
export function minimumStepSeconds(lowestRate: number): number {
  return Math.max(MIN_STEP_SECONDS, Math.ceil(MIN_STEP_ORDERS / lowestRate));
}

function rateProblems(request: SearchRequest, caps: RunCaps): string | undefined {
  const cap = (name: string, rate: number) =>
    `${name} ${rate} exceeds the server's MAX_RUN_RATE of ${caps.maxRate}; ask for a lower rate or raise MAX_RUN_RATE in the server environment`;
  const { lowest_rate: lowest, highest_rate: highest } = request;
  if (!Number.isFinite(lowest) || lowest < 1) return `lowest_rate must be at least 1 order per second, got ${lowest}`;
  if (lowest > caps.maxRate) return cap("lowest_rate", lowest);
  if (!Number.isFinite(highest) || highest < lowest)
    return `highest_rate must be at least lowest_rate (${lowest}), got ${highest}`;
  if (highest > caps.maxRate) return cap("highest_rate", highest);
  return undefined;
}

function shapeProblems(request: SearchRequest, caps: RunCaps): string | undefined {
  const tolerance = request.tolerance ?? DEFAULT_TOLERANCE;
  if (!(tolerance > 0 && tolerance < 1))
    return `tolerance must be more than 0 and less than 1, e.g. 0.1 for 10 %, got ${tolerance}`;
  if (request.objective.length === 0)
    return 'objective must name at least one threshold, e.g. [{"metric": "p99_ms", "op": "<", "value": 300}]';
  if (request.objective.length > MAX_THRESHOLDS)
    return `objective may have at most ${MAX_THRESHOLDS} thresholds, got ${request.objective.length}`;
  const least = minimumStepSeconds(request.lowest_rate);
  if (!Number.isInteger(request.step_seconds) || request.step_seconds < least)
    return `step_seconds ${request.step_seconds} is too short to measure: at lowest_rate ${request.lowest_rate} a step must last at least ${least} s, so that it sends ${MIN_STEP_ORDERS} orders (a p99 over fewer is only the slowest order) and never less than ${MIN_STEP_SECONDS} s (the run is read once a second, so a shorter step is judged mostly on its start-up); ask for step_seconds ${least} or more, or a higher lowest_rate`;
  const warmup = request.warmup_seconds ?? 0;
  if (!Number.isInteger(warmup) || warmup < 0 || warmup > caps.maxSeconds)
    return `warmup_seconds must be a whole number from 0 to ${caps.maxSeconds} (MAX_RUN_SECONDS), got ${warmup}`;
  return undefined;
}

/** The run a step is: its rate for its duration, judged on the objective (the warm-up on nothing). */
export function stepRequest(plan: CapacityPlan, phase: StepPhase, rate: number, index: number): RunRequest {
  const duration =
    phase === "warm-up" ? plan.warmup_seconds : phase === "confirm" ? plan.confirm_seconds : plan.step_seconds;
  return {
    rate_per_second: rate,
    duration_seconds: duration,
    mode: plan.mode,
    seed: (plan.seed + index) % (MAX_SEED + 1),
    thresholds: phase === "warm-up" ? [] : plan.objective,
    ...(plan.locations ? { locations: plan.locations } : {}),
  };
}

/** Checks a search against the server's caps, with messages in the style of a run's refusals. */
export function planCapacitySearch(request: SearchRequest, seed: number, caps: RunCaps): Result<CapacityPlan> {
  const problem = rateProblems(request, caps) ?? shapeProblems(request, caps);
  if (problem) return fail("bad_request", problem);
  const { highest_rate: highest, step_seconds: step } = request;
  const plan: CapacityPlan = {
    objective: [...request.objective],
    lowest_rate: request.lowest_rate,
    highest_rate: highest,
    tolerance: request.tolerance ?? DEFAULT_TOLERANCE,
    step_seconds: step,
    // Longer than a step where the caps allow; never shorter.
    confirm_seconds: Math.max(
      step,
      Math.min(CONFIRM_FACTOR * step, caps.maxSeconds, Math.floor(caps.maxOrders / highest)),
    ),
    warmup_seconds: request.warmup_seconds ?? 0,
    pause_seconds: STEP_PAUSE_SECONDS,
    mode: request.mode,
    seed,
    max_steps: MAX_SEARCH_STEPS,
    ...(request.locations && request.locations.length > 0 ? { locations: [...new Set(request.locations)] } : {}),
  };
  // The largest step of each kind, planned as the run it will be: a search never starts what a step would refuse.
  const largest: [StepPhase, number, string][] = [
    ["grow", highest, "a step at highest_rate"],
    ["confirm", highest, "the confirming step at highest_rate"],
  ];
  if (plan.warmup_seconds > 0) largest.push(["warm-up", plan.lowest_rate, "the warm-up"]);
  for (const [phase, rate, what] of largest) {
    const planned = planRun(stepRequest(plan, phase, rate, 0), seed, caps);
    if (!planned.ok) return fail("bad_request", `${what} would be refused as a run: ${planned.error.message}`);
  }
  return ok(plan);
}
