import { describe, expect, it } from "vitest";
import { dueBy, planRun } from "../../src/synth/run-plan";
import { RUN_CAPS } from "../helpers/synth-fakes";

// A traffic run's plan: how many orders are due by when, and the requests the
// server's caps refuse.

describe("the schedule", () => {
  it("a flat rate sends rate x seconds; a ramp sends half as much while it climbs", () => {
    expect(dueBy({ rate_per_second: 10, ramp_seconds: 0, duration_seconds: 60 }, 30)).toBe(300);
    expect(dueBy({ rate_per_second: 10, ramp_seconds: 10, duration_seconds: 60 }, 10)).toBe(50);
    expect(dueBy({ rate_per_second: 10, ramp_seconds: 10, duration_seconds: 60 }, 60)).toBe(550);
    expect(dueBy({ rate_per_second: 10, ramp_seconds: 10, duration_seconds: 60 }, 600)).toBe(550);
  });

  it.each([
    [{ rate_per_second: 500 }, "rate_per_second 500 exceeds the server's MAX_RUN_RATE of 50; ask for a lower rate or raise MAX_RUN_RATE in the server environment"],
    [{ duration_seconds: 3600 }, "duration_seconds 3600 exceeds the server's MAX_RUN_SECONDS of 900; run for less time or raise MAX_RUN_SECONDS in the server environment"],
    [{ rate_per_second: 0 }, "rate_per_second must be more than 0, got 0"],
    [{ duration_seconds: 0 }, "duration_seconds must be at least 1, got 0"],
    [{ ramp_seconds: 10 }, "ramp_seconds must be between 0 and duration_seconds (5), got 10"],
  ])("refuses %j readably", (request, message) => {
    expect(planRun({ rate_per_second: 10, duration_seconds: 5, mode: "seeded", ramp_seconds: 0, ...request }, 1, RUN_CAPS)).toEqual({
      ok: false,
      error: { code: "bad_request", message },
    });
  });

  it("refuses a run over MAX_RUN_ORDERS, saying how many orders it would send", () => {
    expect(planRun({ rate_per_second: 50, duration_seconds: 900, mode: "seeded", ramp_seconds: 0 }, 1, { ...RUN_CAPS, maxOrders: 1000 })).toEqual({
      ok: false,
      error: {
        code: "bad_request",
        message: "that run would send 45000 orders, over the server's MAX_RUN_ORDERS of 1000; lower the rate or the duration, or raise MAX_RUN_ORDERS in the server environment",
      },
    });
  });
});
