import { describe, expect, it } from "vitest";
import { runOrdersPerMinute, SyntheticBudget } from "../../src/synth/order-budget";

// The account's synthetic order budget, without MCP: batches count for a
// minute after they were asked for, running runs for as long as they run.

const T0 = Date.UTC(2026, 11, 3, 8, 0, 0);
const BUDGET = "this account's synthetic traffic budget of 100 orders per minute (SYNTH_ORDERS_PER_MINUTE)";
const limits = (runsPerMinute = 0) => ({ perMinute: 100, runsPerMinute });

describe("batches", () => {
  it("fit until the minute's budget is used, then are refused with when to retry", () => {
    const budget = new SyntheticBudget();
    expect(budget.charge({ kind: "batch", orders: 60 }, limits(), T0).ok).toBe(true);
    expect(budget.charge({ kind: "batch", orders: 40 }, limits(), T0 + 10_000).ok).toBe(true);
    const refused = budget.charge({ kind: "batch", orders: 1 }, limits(), T0 + 15_000);
    expect(refused).toEqual({
      ok: false,
      error: {
        code: "rate_limited",
        message: `a batch of 1 orders would go over ${BUDGET}: 100 orders went out in batches in the last minute. Retry after 45 seconds.`,
      },
    });
  });

  it("the retry time is when enough has aged out, not merely the oldest", () => {
    const budget = new SyntheticBudget();
    budget.charge({ kind: "batch", orders: 10 }, limits(), T0);
    budget.charge({ kind: "batch", orders: 90 }, limits(), T0 + 20_000);
    const refused = budget.charge({ kind: "batch", orders: 50 }, limits(), T0 + 30_000);
    expect(!refused.ok && refused.error.message).toMatch(/Retry after 50 seconds\.$/);
  });

  it("a refused batch books nothing, and a minute later the budget is whole again", () => {
    const budget = new SyntheticBudget();
    budget.charge({ kind: "batch", orders: 100 }, limits(), T0);
    expect(budget.charge({ kind: "batch", orders: 100 }, limits(), T0 + 30_000).ok).toBe(false);
    expect(budget.charge({ kind: "batch", orders: 100 }, limits(), T0 + 60_000).ok).toBe(true);
  });

  it("a batch bigger than the whole budget is refused outright, saying what to change", () => {
    const refused = new SyntheticBudget().charge({ kind: "batch", orders: 101 }, limits(), T0);
    expect(!refused.ok && refused.error.message).toBe(
      `a batch of 101 orders is more than ${BUDGET}; send fewer at a time, or raise SYNTH_ORDERS_PER_MINUTE in the server environment`,
    );
  });
});

describe("runs", () => {
  it("a running run's pace is part of the minute, and a batch that does not fit beside it waits for it", () => {
    const refused = new SyntheticBudget().charge({ kind: "batch", orders: 50 }, limits(60), T0);
    expect(!refused.ok && refused.error.message).toBe(
      `a batch of 50 orders would go over ${BUDGET}: 0 orders went out in batches in the last minute and running traffic runs send 60 a minute. Retry once a running run has ended, or stop it with stop_traffic_run.`,
    );
  });

  it("a run is checked at its pace and books nothing itself: once running, it is counted as a running run", () => {
    const budget = new SyntheticBudget();
    expect(budget.charge({ kind: "run", ordersPerMinute: 90 }, limits(), T0).ok).toBe(true);
    expect(budget.charge({ kind: "batch", orders: 100 }, limits(), T0 + 1000).ok).toBe(true);
    const second = budget.charge({ kind: "run", ordersPerMinute: 90 }, limits(), T0 + 2000);
    expect(!second.ok && second.error.message).toMatch(
      /^a run at 90 orders a minute would go over .*Retry after 59 seconds\.$/,
    );
  });

  it("a run faster than the whole budget is refused outright", () => {
    const refused = new SyntheticBudget().charge({ kind: "run", ordersPerMinute: 120 }, limits(), T0);
    expect(!refused.ok && refused.error.message).toBe(
      `a run at 120 orders a minute is more than ${BUDGET}; start it at a lower rate, or raise SYNTH_ORDERS_PER_MINUTE in the server environment`,
    );
  });

  it("a run's pace is its rate a minute, or all of it when it is shorter than a minute", () => {
    expect(runOrdersPerMinute({ peak_rate: 20, total_orders: 6000 })).toBe(1200);
    expect(runOrdersPerMinute({ peak_rate: 0.5, total_orders: 900 })).toBe(30);
    expect(runOrdersPerMinute({ peak_rate: 50, total_orders: 500 })).toBe(500);
  });
});
