import { describe, expect, it } from "vitest";
import { failure, parsed } from "../helpers/config";

// APPLY_PROVIDER and its settings: where an approved change is sent before it
// is applied, checked once at startup. (BASE makes these production.)

const DEV = { ENVIRONMENT: "development" };

describe("apply provider configuration", () => {
  it("is none by default: changes are applied locally, as before", () => {
    expect(parsed({}).applyProvider).toEqual({
      kind: "none",
      timeoutMs: 5000,
      reconcileSeconds: 30,
      reconcileChecks: 8,
    });
  });

  it("the stub with its timeout and reconciler settings, in development", () => {
    const config = parsed({
      ...DEV,
      APPLY_PROVIDER: "stub",
      APPLY_PROVIDER_TIMEOUT_MS: "250",
      APPLY_RECONCILE_SECONDS: "10",
      APPLY_RECONCILE_CHECKS: "3",
    });
    expect(config.applyProvider).toEqual({ kind: "stub", timeoutMs: 250, reconcileSeconds: 10, reconcileChecks: 3 });
  });

  it("refuses an unknown provider and out-of-range settings, naming each variable", () => {
    const error = failure({
      ...DEV,
      APPLY_PROVIDER: "paypal",
      APPLY_PROVIDER_TIMEOUT_MS: "0",
      APPLY_RECONCILE_CHECKS: "many",
    });
    expect(error.message).toContain("APPLY_PROVIDER: use one of none, stub");
    expect(error.message).toContain("APPLY_PROVIDER_TIMEOUT_MS: must be at least 1");
    expect(error.message).toContain("APPLY_RECONCILE_CHECKS: must be a whole number");
  });

  it("refuses the simulated provider in production", () => {
    expect(failure({ APPLY_PROVIDER: "stub" }).message).toContain(
      "APPLY_PROVIDER=stub sends approved changes to a simulated provider",
    );
  });
});
