import type { MiddlewareHandler } from "hono";
import type { IntakeFaults } from "../config/intake-faults";
import type { AppEnv } from "../http/app-env";
import { errorResponse } from "../http/respond";

/** What INTAKE_FAULTS does to one order that arrives at `nowMs`. */
export interface FaultPlan {
  /** How long the order is held before it is handled: the rest of a stall, then the latency. */
  readonly delayMs: number;
  /** Answered 503 after the delay instead of being handled. */
  readonly fail: boolean;
}

/**
 * An order that arrives during a stall waits for the stall to end, like every
 * other order then: the API is frozen, not slow for one unlucky request.
 * `draw` is a uniform number in [0, 1).
 */
export function planFault(faults: IntakeFaults, nowMs: number, draw: number): FaultPlan {
  let delayMs = faults.latencyMs;
  if (faults.stall) {
    const intoWindow = ((nowMs % faults.stall.everyMs) + faults.stall.everyMs) % faults.stall.everyMs;
    if (intoWindow < faults.stall.ms) delayMs += faults.stall.ms - intoWindow;
  }
  return { delayMs, fail: draw < faults.failShare };
}

interface FaultClock {
  readonly now: () => number;
  readonly sleep: (ms: number) => Promise<void>;
  readonly random: () => number;
}

const realClock: FaultClock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  random: () => Math.random(),
};

/** Applies the configured INTAKE_FAULTS to order intake; without them it only passes the request on. */
export function intakeFaults<E extends AppEnv>(clock: FaultClock = realClock): MiddlewareHandler<E> {
  return async (c, next) => {
    const faults = c.get("config").intakeFaults;
    if (faults === undefined) return next();
    const plan = planFault(faults, clock.now(), clock.random());
    if (plan.delayMs > 0) await clock.sleep(plan.delayMs);
    if (plan.fail) {
      return errorResponse(c, {
        code: "unavailable",
        message: `failed on purpose: this server's INTAKE_FAULTS (${faults.spec}) fails a share of orders; this one was not stored, so sending it again is safe`,
      });
    }
    await next();
  };
}
