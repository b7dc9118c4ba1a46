import { describe, expect, it } from "vitest";
import { ok } from "../../src/core/errors";
import { TARGET_NAME, unreachable } from "../../src/synth/order-api-target";
import { checkTarget } from "../../src/synth/target-check";
import { fakeTarget, HEALTHY, UNREACHABLE_PREFIX } from "../helpers/synth-fakes";

// check_target's answer with a fake target: an unreachable target is data,
// not a failure.

describe("checkTarget", () => {
  const down = () => unreachable("connection refused");

  it("checkTarget reports reachable:false with null counts and the problem, instead of failing", async () => {
    expect(await checkTarget(fakeTarget(down))).toEqual({
      target: TARGET_NAME,
      reachable: false,
      skus: null,
      customers: null,
      problem: `${UNREACHABLE_PREFIX}connection refused`,
    });
  });

  it("checkTarget on a healthy target reports its counts and no problem", async () => {
    expect(await checkTarget(fakeTarget(() => ok(HEALTHY)))).toEqual({ target: TARGET_NAME, reachable: true, skus: 8, customers: 5, problem: null });
  });
});
