import { z } from "zod/v4";
import { boundedInt } from "./whole-number";

/**
 * The external provider an approved change is sent to before it is applied
 * here. `none` (the default) applies locally, with a certain answer. `stub`
 * is a simulated provider inside this Worker (provider/stub-provider.ts):
 * it answers like a real one, and tests make it time out or refuse, so the
 * uncertain path (a proposal left `applying`, settled later by the
 * account's reconciler) is exercised without a real one.
 */
export const APPLY_PROVIDER_KINDS = ["none", "stub"] as const;

export interface ApplyProviderConfig {
  readonly kind: (typeof APPLY_PROVIDER_KINDS)[number];
  /** How long one call to the provider may take before its result counts as unknown. */
  readonly timeoutMs: number;
  /** The reconciler's first check after an unanswered call; each later check waits twice as long. */
  readonly reconcileSeconds: number;
  /** How many checks the reconciler makes before it stops and leaves the proposal to a person. */
  readonly reconcileChecks: number;
}

export const ApplyProviderVars = {
  APPLY_PROVIDER: z
    .enum(APPLY_PROVIDER_KINDS, { message: `use one of ${APPLY_PROVIDER_KINDS.join(", ")}` })
    .default("none"),
  APPLY_PROVIDER_TIMEOUT_MS: boundedInt(1, 60_000).default(5000),
  APPLY_RECONCILE_SECONDS: boundedInt(1, 3600).default(30),
  APPLY_RECONCILE_CHECKS: boundedInt(1, 50).default(8),
};

type Vars = { [K in keyof typeof ApplyProviderVars]: z.output<(typeof ApplyProviderVars)[K]> };

export function applyProviderConfig(vars: Vars): ApplyProviderConfig {
  return {
    kind: vars.APPLY_PROVIDER,
    timeoutMs: vars.APPLY_PROVIDER_TIMEOUT_MS,
    reconcileSeconds: vars.APPLY_RECONCILE_SECONDS,
    reconcileChecks: vars.APPLY_RECONCILE_CHECKS,
  };
}

/** A deployment whose changes are confirmed by a simulation has no provider at all: refused in production. */
export function applyProviderProblems(
  environment: "development" | "production",
  kind: ApplyProviderConfig["kind"],
): string[] {
  if (environment !== "production" || kind !== "stub") return [];
  return [
    "APPLY_PROVIDER=stub sends approved changes to a simulated provider inside this Worker and is for development and tests; remove it (or set it to none) in production",
  ];
}
