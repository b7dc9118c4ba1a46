/**
 * How a capacity search moves, as a pure function of its plan and the steps
 * judged so far: grow the rate (doubling from lowest_rate, never past
 * highest_rate) until a step fails, then narrow the interval between the
 * best pass and the lowest fail by halves until it is within the tolerance,
 * then run the best passing rate once more over a longer step. A confirming
 * step that fails makes that rate a fail, and the narrowing goes on below it.
 * Inconclusive and unfinished steps never get here: the search ends on them
 * (capacity-coordinator.ts), since they say nothing about the target.
 */
import type { CapacityPlan, SearchOutcome, StepPhase } from "./capacity-schemas";

/** A step as the search weighs it: its phase, its rate, and whether it met the objective. */
export interface JudgedStep {
  readonly phase: StepPhase;
  readonly rate: number;
  readonly passed: boolean;
}

export type Move =
  | { readonly kind: "step"; readonly phase: StepPhase; readonly rate: number }
  | { readonly kind: "done"; readonly outcome: SearchOutcome };

export interface Bracket {
  /** The highest rate that met the objective below every rate that failed; null when none did. */
  readonly pass: number | null;
  /** The lowest rate that failed; null when none did. */
  readonly fail: number | null;
}

/** Whole orders a second above 10, tenths below: rates a person can repeat. */
export function roundRate(rate: number): number {
  return rate >= 10 ? Math.round(rate) : Math.round(rate * 10) / 10;
}

/**
 * The lowest failing rate, and the highest passing rate under it. A pass
 * above a fail (noise) is not believed: the lower fail is the safer limit.
 */
export function bracketOf(steps: readonly JudgedStep[]): Bracket {
  const judged = steps.filter((step) => step.phase !== "warm-up");
  const fails = judged.filter((step) => !step.passed).map((step) => step.rate);
  const fail = fails.length > 0 ? Math.min(...fails) : null;
  const passes = judged.filter((step) => step.passed && (fail === null || step.rate < fail)).map((s) => s.rate);
  return { pass: passes.length > 0 ? Math.max(...passes) : null, fail };
}

/** Whether the interval between pass and fail is as narrow as the plan asks (or cannot be split further). */
export function narrowEnough(plan: CapacityPlan, pass: number, fail: number): boolean {
  const middle = roundRate((pass + fail) / 2);
  return fail - pass <= plan.tolerance * pass || middle <= pass || middle >= fail;
}

/** What the search does next, given every step so far. */
export function nextMove(plan: CapacityPlan, steps: readonly JudgedStep[]): Move {
  if (plan.warmup_seconds > 0 && !steps.some((step) => step.phase === "warm-up"))
    return { kind: "step", phase: "warm-up", rate: plan.lowest_rate };
  const judged = steps.filter((step) => step.phase !== "warm-up");
  if (judged.length === 0) return { kind: "step", phase: "grow", rate: plan.lowest_rate };
  const { pass, fail } = bracketOf(judged);
  if (pass === null) return { kind: "done", outcome: "below_lowest" };
  const confirmed = judged.some((step) => step.phase === "confirm" && step.passed && step.rate === pass);
  const limited = judged.length >= plan.max_steps;
  if (fail === null) {
    if (pass < plan.highest_rate && !limited)
      return { kind: "step", phase: "grow", rate: Math.min(plan.highest_rate, roundRate(pass * 2)) };
    return confirmed || limited ? { kind: "done", outcome: "above_cap" } : confirm(pass);
  }
  if (!narrowEnough(plan, pass, fail) && !limited)
    return { kind: "step", phase: "narrow", rate: roundRate((pass + fail) / 2) };
  return confirmed || limited ? { kind: "done", outcome: "found" } : confirm(pass);
}

function confirm(rate: number): Move {
  return { kind: "step", phase: "confirm", rate };
}
