import { describe, expect, it } from "vitest";
import { ok } from "../../src/core/errors";
import { BINDING_TARGET_NAME, unreachable } from "../../src/synth/order-api-target";
import { checkTarget } from "../../src/synth/target-check";
import { fakeTarget, HEALTHY, UNREACHABLE_PREFIX } from "../helpers/synth-fakes";

// check_target's answer with a fake target: an unreachable target is data,
// not a failure.

describe("checkTarget", () => {
  const down = () => unreachable("connection refused");
  const binding = { name: BINDING_TARGET_NAME, allowedHost: null };

  it("checkTarget reports reachable:false with null counts and the problem, instead of failing", async () => {
    expect(await checkTarget(fakeTarget(down), binding)).toEqual({
      target: BINDING_TARGET_NAME,
      allowed_host: null,
      reachable: false,
      skus: null,
      customers: null,
      problem: `${UNREACHABLE_PREFIX}connection refused`,
    });
  });

  it("checkTarget on a healthy target reports its counts and no problem", async () => {
    expect(
      await checkTarget(
        fakeTarget(() => ok(HEALTHY)),
        binding,
      ),
    ).toEqual({
      target: BINDING_TARGET_NAME,
      allowed_host: null,
      reachable: true,
      skus: 8,
      customers: 5,
      problem: null,
    });
  });

  it("names a URL target and the one host it may reach", async () => {
    const about = {
      name: "ORDER_API_URL https://orders.example.com (fixed in configuration)",
      allowedHost: "orders.example.com",
    };
    expect(
      await checkTarget(
        fakeTarget(() => ok(HEALTHY)),
        about,
      ),
    ).toMatchObject({ target: about.name, allowed_host: "orders.example.com", reachable: true });
  });
});
