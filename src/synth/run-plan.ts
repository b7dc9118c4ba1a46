import type { z } from "zod/v4";
import { fail, ok, type Result } from "../core/errors";
import type { GeneratorMode } from "./generators";
import type { RunPlanSchema } from "./run-schemas";

/**
 * A sustained traffic run as the caller asks for it, and the arithmetic of
 * its schedule. Pure: the account's object drives it, this module only says
 * how many orders should have left by a given moment. The request's contract
 * is start_traffic_run's input schema; the checks that need the server's caps
 * are here, so their refusals read the same from every caller.
 */
export interface RunRequest {
  readonly rate_per_second: number;
  readonly duration_seconds: number;
  readonly ramp_seconds: number;
  readonly mode: GeneratorMode;
  readonly seed?: number | undefined;
}

interface RunCaps {
  readonly maxRate: number;
  readonly maxSeconds: number;
  readonly maxOrders: number;
}

export type RunPlan = z.infer<typeof RunPlanSchema>;

/** Orders that should have been sent `elapsedSeconds` into the run: the area under a ramp-then-flat rate. */
export function dueBy(plan: Pick<RunPlan, "rate_per_second" | "ramp_seconds" | "duration_seconds">, elapsedSeconds: number): number {
  const t = Math.min(Math.max(0, elapsedSeconds), plan.duration_seconds);
  const ramp = plan.ramp_seconds;
  const rate = plan.rate_per_second;
  const area = t <= ramp ? (rate * t * t) / (2 * ramp) : (rate * ramp) / 2 + rate * (t - ramp);
  return Math.floor(area + 1e-9);
}

/** Checks a request against the server's caps, with messages in the style of the MAX_BATCH refusal. */
export function planRun(request: RunRequest, seed: number, caps: RunCaps): Result<RunPlan> {
  const { rate_per_second: rate, duration_seconds: duration, ramp_seconds: ramp } = request;
  if (!Number.isFinite(rate) || rate <= 0) return fail("bad_request", `rate_per_second must be more than 0, got ${rate}`);
  if (rate > caps.maxRate) {
    return fail("bad_request", `rate_per_second ${rate} exceeds the server's MAX_RUN_RATE of ${caps.maxRate}; ask for a lower rate or raise MAX_RUN_RATE in the server environment`);
  }
  if (duration < 1) return fail("bad_request", `duration_seconds must be at least 1, got ${duration}`);
  if (duration > caps.maxSeconds) {
    return fail(
      "bad_request",
      `duration_seconds ${duration} exceeds the server's MAX_RUN_SECONDS of ${caps.maxSeconds}; run for less time or raise MAX_RUN_SECONDS in the server environment`,
    );
  }
  if (ramp < 0 || ramp > duration) return fail("bad_request", `ramp_seconds must be between 0 and duration_seconds (${duration}), got ${ramp}`);
  const total = dueBy({ rate_per_second: rate, ramp_seconds: ramp, duration_seconds: duration }, duration);
  if (total < 1) return fail("bad_request", `that rate and duration send no order at all; ask for at least one order (rate x duration >= 1)`);
  if (total > caps.maxOrders) {
    return fail(
      "bad_request",
      `that run would send ${total} orders, over the server's MAX_RUN_ORDERS of ${caps.maxOrders}; lower the rate or the duration, or raise MAX_RUN_ORDERS in the server environment`,
    );
  }
  return ok({ rate_per_second: rate, duration_seconds: duration, ramp_seconds: ramp, mode: request.mode, seed, total_orders: total });
}
