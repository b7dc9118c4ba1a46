/**
 * An account's budget of synthetic orders per minute (SYNTH_ORDERS_PER_MINUTE),
 * over both ways synthetic traffic leaves: a batch (send_orders) is counted by
 * the orders it asked for, for the 60 seconds after it was asked; a traffic
 * run is counted at its pace for as long as it is running. The account's
 * object keeps one, so every batch of the account meets the same count
 * whichever isolate served the call. Request limits count requests; this
 * counts what they send, so neither many small calls nor one batch of calls
 * can send more.
 */
import { fail, ok, type Result } from "../core/errors";

const WINDOW_MS = 60_000;

export type BudgetAsk =
  | { readonly kind: "batch"; readonly orders: number }
  | { readonly kind: "run"; readonly ordersPerMinute: number }
  | { readonly kind: "search"; readonly ordersPerMinute: number };

export interface BudgetLimits {
  readonly perMinute: number;
  /** What the account's running runs send in a minute (runOrdersPerMinute of each). */
  readonly runsPerMinute: number;
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

export class SyntheticBudget {
  private spent: { readonly at: number; readonly orders: number }[] = [];

  /** ok, booking a batch's orders; or rate_limited with a sentence that names the budget and when to retry. */
  charge(ask: BudgetAsk, limits: BudgetLimits, now: number): Result<void> {
    this.spent = this.spent.filter((entry) => entry.at > now - WINDOW_MS);
    const { orders, what, smaller } = asked(ask);
    const budget = `this account's synthetic traffic budget of ${limits.perMinute} orders per minute (SYNTH_ORDERS_PER_MINUTE)`;
    if (orders > limits.perMinute)
      return fail(
        "rate_limited",
        `${what} is more than ${budget}; ${smaller}, or raise SYNTH_ORDERS_PER_MINUTE in the server environment`,
      );
    const inBatches = this.spent.reduce((sum, entry) => sum + entry.orders, 0);
    const over = inBatches + limits.runsPerMinute + orders - limits.perMinute;
    if (over > 0) {
      const used = [
        `${inBatches} orders went out in batches in the last minute`,
        ...(limits.runsPerMinute > 0 ? [`running traffic runs send ${limits.runsPerMinute} a minute`] : []),
      ];
      return fail(
        "rate_limited",
        `${what} would go over ${budget}: ${used.join(" and ")}. ${this.whenToRetry(over, now)}`,
      );
    }
    if (ask.kind === "batch") this.spent.push({ at: now, orders });
    return ok(undefined);
  }

  /** When enough of the last minute's batches have aged out to free `over` orders. */
  private whenToRetry(over: number, now: number): string {
    let freed = 0;
    for (const entry of this.spent) {
      freed += entry.orders;
      if (freed >= over) return `Retry after ${Math.max(1, Math.ceil((entry.at + WINDOW_MS - now) / 1000))} seconds.`;
    }
    return "Retry once a running run has ended, or stop it with stop_traffic_run.";
  }
}
