/**
 * An account's budget of synthetic orders per minute (SYNTH_ORDERS_PER_MINUTE),
 * over every way synthetic traffic leaves: a batch (send_orders), a traffic
 * run, and a capacity search's steps. Each is booked when it is admitted, in
 * the same synchronous step as the check, so two concurrent asks cannot both
 * pass on the same room: a batch by the orders it asked for, for the 60
 * seconds after; a run at its pace, and a search at its highest rate, for as
 * long as it runs and then by what it sent, for the 60 seconds after it ended.
 * Counting a run only while it ran let back-to-back short runs, and a batch
 * right after one, send several budgets in a minute.
 *
 * The bookings live in the account object's SQLite (BudgetLedger), so a
 * restart does not forget a full minute; the object keeps one ledger, so
 * every ask of the account meets the same count whichever isolate served it.
 */
import { fail, ok, type Result } from "../core/errors";

const WINDOW_MS = 60_000;

export type BudgetAsk =
  | { readonly kind: "batch"; readonly orders: number }
  | { readonly kind: "run"; readonly ordersPerMinute: number }
  | { readonly kind: "search"; readonly ordersPerMinute: number };

/** One booking: `holder` names the run or search it was for (`run:<id>`, `search:<id>`), null for a batch. */
export interface BudgetEntry {
  readonly id: number;
  readonly at: number;
  readonly orders: number;
  readonly holder: string | null;
}

/** Where the bookings are kept: the account object's SQLite (account/budget-ledger.ts). */
export interface BudgetLedger {
  entries(): BudgetEntry[];
  book(at: number, orders: number): number;
  /** Names the run or search a booking was for, once it has started. */
  hold(id: number, holder: string): void;
  remove(ids: readonly number[]): void;
}

/** A run's or search's state, for its booking: still sending, or ended at `endedAt` having sent `sent`. */
export type HolderState = { readonly running: true } | { readonly running: false; endedAt: number; sent: number };

export interface BudgetLimits {
  readonly perMinute: number;
  /** The state of a booking's run or search; undefined when it is gone (the booking then ages as a batch's). */
  readonly holder: (holder: string) => HolderState | undefined;
}

/** A run's pace in orders per minute: its peak rate, or all of it when it is shorter than a minute. */
export function runOrdersPerMinute(plan: { readonly peak_rate: number; readonly total_orders: number }): number {
  return Math.min(plan.total_orders, Math.ceil(plan.peak_rate * 60));
}

/**
 * What a capacity search may send in a minute at most: its highest rate. Here,
 * beside the run's pace, and not with the search's plan: the account's object
 * charges the budget, and what its class imports every cold start evaluates
 * (the plan's module builds the run schemas).
 */
export function searchOrdersPerMinute(plan: { readonly highest_rate: number }): number {
  return Math.ceil(plan.highest_rate * 60);
}

function asked(ask: BudgetAsk): { orders: number; what: string; smaller: string } {
  if (ask.kind === "batch")
    return { orders: ask.orders, what: `a batch of ${ask.orders} orders`, smaller: "send fewer at a time" };
  if (ask.kind === "search")
    return {
      orders: ask.ordersPerMinute,
      what: `a capacity search of up to ${ask.ordersPerMinute} orders a minute`,
      smaller: "ask for a lower highest_rate",
    };
  return {
    orders: ask.ordersPerMinute,
    what: `a run at ${ask.ordersPerMinute} orders a minute`,
    smaller: "start it at a lower rate",
  };
}

/** Until when a booking counts, and how many orders it counts for. */
function weight(entry: BudgetEntry, limits: BudgetLimits): { until: number; orders: number } {
  const state = entry.holder === null ? undefined : limits.holder(entry.holder);
  if (state === undefined) return { until: entry.at + WINDOW_MS, orders: entry.orders };
  if (state.running) return { until: Number.POSITIVE_INFINITY, orders: entry.orders };
  return { until: Math.max(entry.at, state.endedAt) + WINDOW_MS, orders: Math.min(entry.orders, state.sent) };
}

export class SyntheticBudget {
  constructor(private readonly ledger: BudgetLedger) {}

  /**
   * Checks and books in one synchronous step: ok with the booking's id (hold it once the run or search has an id,
   * release it if it did not start), or rate_limited with a sentence that names the budget and when to retry.
   */
  charge(ask: BudgetAsk, limits: BudgetLimits, now: number): Result<number> {
    const { orders, what, smaller } = asked(ask);
    const budget = `this account's synthetic traffic budget of ${limits.perMinute} orders per minute (SYNTH_ORDERS_PER_MINUTE)`;
    if (orders > limits.perMinute)
      return fail(
        "rate_limited",
        `${what} is more than ${budget}; ${smaller}, or raise SYNTH_ORDERS_PER_MINUTE in the server environment`,
      );
    const weighed = this.ledger.entries().map((entry) => ({ entry, ...weight(entry, limits) }));
    const aged = weighed.filter((w) => w.until <= now);
    if (aged.length > 0) this.ledger.remove(aged.map((w) => w.entry.id));
    const live = weighed.filter((w) => w.until > now);
    const lastMinute = live.filter((w) => w.until !== Number.POSITIVE_INFINITY).reduce((sum, w) => sum + w.orders, 0);
    const running = live.filter((w) => w.until === Number.POSITIVE_INFINITY).reduce((sum, w) => sum + w.orders, 0);
    const over = lastMinute + running + orders - limits.perMinute;
    if (over > 0) {
      const used = [
        `${lastMinute} orders went out in batches, runs and searches in the last minute`,
        ...(running > 0 ? [`running traffic runs send ${running} a minute`] : []),
      ];
      return fail(
        "rate_limited",
        `${what} would go over ${budget}: ${used.join(" and ")}. ${whenToRetry(live, over, now)}`,
      );
    }
    return ok(this.ledger.book(now, orders));
  }

  hold(id: number, holder: string): void {
    this.ledger.hold(id, holder);
  }

  /** Gives a booking back: what it was for did not start. */
  release(id: number): void {
    this.ledger.remove([id]);
  }
}

/** When enough of the last minute's bookings have aged out to free `over` orders. */
function whenToRetry(live: readonly { until: number; orders: number }[], over: number, now: number): string {
  let freed = 0;
  for (const { until, orders } of [...live].sort((a, b) => a.until - b.until)) {
    if (until === Number.POSITIVE_INFINITY) break;
    freed += orders;
    if (freed >= over) return `Retry after ${Math.max(1, Math.ceil((until - now) / 1000))} seconds.`;
  }
  return "Retry once a running run has ended, or stop it with stop_traffic_run.";
}
