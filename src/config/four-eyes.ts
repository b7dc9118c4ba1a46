import { z } from "zod/v4";
import { type Risk, RiskSchema } from "../core/risk";

/**
 * Four eyes: which proposals need two distinct approvers. Either rule may be
 * off; a proposal that meets either needs two. The rule is read when a
 * proposal is made and pinned to it, so a later change of configuration
 * does not move a proposal that is already waiting.
 */
export interface FourEyesRule {
  /** Money at stake (a refund or a voided hold) at or above this many cents; null: off. */
  readonly overCents: number | null;
  /** Risk at or above this level; null: off. */
  readonly risk: Risk | null;
}

export const FourEyesVars = {
  FOUR_EYES_OVER_CENTS: z
    .string()
    .regex(/^\d+$/, "must be a whole number of cents, like 50000 for $500.00")
    .transform(Number)
    .pipe(z.number().int().min(1, "must be at least 1").max(1_000_000_000, "must be at most 1000000000"))
    .optional(),
  FOUR_EYES_RISK: RiskSchema.optional(),
};

export function fourEyesRule(vars: {
  FOUR_EYES_OVER_CENTS?: number | undefined;
  FOUR_EYES_RISK?: Risk | undefined;
}): FourEyesRule {
  return { overCents: vars.FOUR_EYES_OVER_CENTS ?? null, risk: vars.FOUR_EYES_RISK ?? null };
}
