import { describe, expect, it } from "vitest";
import {
  type BudgetEntry,
  type BudgetLedger,
  type HolderState,
  runOrdersPerMinute,
  SyntheticBudget,
} from "../../src/synth/order-budget";

// The account's synthetic order budget, without MCP: every admitted batch, run and search is booked as it is
// checked; a batch counts for a minute after it was asked for, a run or search while it runs and then by what it
// sent, for a minute after it ended. (The object keeps the bookings in its SQLite: test/account/.)

const T0 = Date.UTC(2026, 11, 3, 8, 0, 0);
const BUDGET = "this account's synthetic traffic budget of 100 orders per minute (SYNTH_ORDERS_PER_MINUTE)";

/** The ledger as an array; the object's is a table (account/budget-ledger.ts). */
function arrayLedger(): BudgetLedger {
  let rows: BudgetEntry[] = [];
  let next = 1;
  return {
    entries: () => [...rows],
    book: (at, orders) => {
      rows.push({ id: next, at, orders, holder: null });
      return next++;
    },
    hold: (id, holder) => {
      rows = rows.map((row) => (row.id === id ? { ...row, holder } : row));
    },
    remove: (ids) => {
      rows = rows.filter((row) => !ids.includes(row.id));
    },
  };
}

function account(holders: Record<string, HolderState> = {}) {
  const budget = new SyntheticBudget(arrayLedger());
  const limits = { perMinute: 100, holder: (holder: string) => holders[holder] };
  return { budget, limits, holders };
}

describe("batches", () => {
  it("fit until the minute's budget is used, then are refused with when to retry", () => {
    const { budget, limits } = account();
    expect(budget.charge({ kind: "batch", orders: 60 }, limits, T0).ok).toBe(true);
    expect(budget.charge({ kind: "batch", orders: 40 }, limits, T0 + 10_000).ok).toBe(true);
    const refused = budget.charge({ kind: "batch", orders: 1 }, limits, T0 + 15_000);
    expect(refused).toEqual({
      ok: false,
      error: {
        code: "rate_limited",
        message: `a batch of 1 orders would go over ${BUDGET}: 100 orders went out in batches, runs and searches in the last minute. Retry after 45 seconds.`,
      },
    });
  });

  it("the retry time is when enough has aged out, not merely the oldest", () => {
    const { budget, limits } = account();
    budget.charge({ kind: "batch", orders: 10 }, limits, T0);
    budget.charge({ kind: "batch", orders: 90 }, limits, T0 + 20_000);
    const refused = budget.charge({ kind: "batch", orders: 50 }, limits, T0 + 30_000);
    expect(!refused.ok && refused.error.message).toMatch(/Retry after 50 seconds\.$/);
  });

  it("a refused batch books nothing, and a minute later the budget is whole again", () => {
    const { budget, limits } = account();
    budget.charge({ kind: "batch", orders: 100 }, limits, T0);
    expect(budget.charge({ kind: "batch", orders: 100 }, limits, T0 + 30_000).ok).toBe(false);
    expect(budget.charge({ kind: "batch", orders: 100 }, limits, T0 + 60_000).ok).toBe(true);
  });

  it("a batch bigger than the whole budget is refused outright, saying what to change", () => {
    const { budget, limits } = account();
    const refused = budget.charge({ kind: "batch", orders: 101 }, limits, T0);
    expect(!refused.ok && refused.error.message).toBe(
      `a batch of 101 orders is more than ${BUDGET}; send fewer at a time, or raise SYNTH_ORDERS_PER_MINUTE in the server environment`,
    );
  });
});

describe("runs and searches", () => {
  it("a running run's pace is part of the minute for as long as it runs, and a batch that does not fit waits", () => {
    const { budget, limits } = account({ "run:r1": { running: true } });
    const run = budget.charge({ kind: "run", ordersPerMinute: 60 }, limits, T0);
    if (!run.ok) throw new Error(run.error.message);
    budget.hold(run.value, "run:r1");
    const refused = budget.charge({ kind: "batch", orders: 50 }, limits, T0 + 5 * 60_000);
    expect(!refused.ok && refused.error.message).toBe(
      `a batch of 50 orders would go over ${BUDGET}: 0 orders went out in batches, runs and searches in the last minute and running traffic runs send 60 a minute. Retry once a running run has ended, or stop it with stop_traffic_run.`,
    );
  });

  it("a run is booked as it is admitted: a second one at once does not fit beside it", () => {
    const { budget, limits } = account();
    expect(budget.charge({ kind: "run", ordersPerMinute: 90 }, limits, T0).ok).toBe(true);
    const second = budget.charge({ kind: "run", ordersPerMinute: 90 }, limits, T0 + 2000);
    expect(!second.ok && second.error.message).toMatch(
      /^a run at 90 orders a minute would go over .*Retry after 58 seconds\.$/,
    );
  });

  it("back-to-back short runs: an ended run still counts what it sent for a minute after it ended", () => {
    const holders: Record<string, HolderState> = { "run:r1": { running: true } };
    const { budget, limits } = account(holders);
    const first = budget.charge({ kind: "run", ordersPerMinute: 80 }, limits, T0);
    if (!first.ok) throw new Error(first.error.message);
    budget.hold(first.value, "run:r1");
    holders["run:r1"] = { running: false, endedAt: T0 + 5000, sent: 80 };
    expect(budget.charge({ kind: "run", ordersPerMinute: 80 }, limits, T0 + 6000).ok).toBe(false);
    expect(budget.charge({ kind: "batch", orders: 30 }, limits, T0 + 30_000).ok).toBe(false);
    expect(budget.charge({ kind: "batch", orders: 20 }, limits, T0 + 30_000).ok).toBe(true);
    expect(budget.charge({ kind: "run", ordersPerMinute: 80 }, limits, T0 + 65_001).ok).toBe(true);
  });

  it("a run stopped early counts only what it sent, not its whole pace", () => {
    const holders: Record<string, HolderState> = { "run:r1": { running: false, endedAt: T0 + 1000, sent: 3 } };
    const { budget, limits } = account(holders);
    const run = budget.charge({ kind: "run", ordersPerMinute: 90 }, limits, T0);
    if (run.ok) budget.hold(run.value, "run:r1");
    expect(budget.charge({ kind: "batch", orders: 97 }, limits, T0 + 2000).ok).toBe(true);
  });

  it("a run that did not start gives its booking back", () => {
    const { budget, limits } = account();
    const run = budget.charge({ kind: "run", ordersPerMinute: 90 }, limits, T0);
    if (run.ok) budget.release(run.value);
    expect(budget.charge({ kind: "batch", orders: 100 }, limits, T0 + 1).ok).toBe(true);
  });

  it("a run faster than the whole budget is refused outright", () => {
    const { budget, limits } = account();
    const refused = budget.charge({ kind: "run", ordersPerMinute: 120 }, limits, T0);
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
