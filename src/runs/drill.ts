/**
 * Rejection drills: a chosen share of a run's orders is broken on purpose,
 * each in exactly one way, and each must come back rejected naming that way.
 * Which orders, and how, follows from the seed and the order's position, so
 * a replay breaks the same orders the same way and keeps their request ids.
 */
import type { OrderRequest } from "../orders/intake-schemas";
import { ChannelSchema, type ReferenceData } from "../orders/reference-data";
import { type RejectionReason, RejectionReasonSchema, reasonOf } from "../orders/rejections";
import { linesTotal } from "../orders/validate-order";
import type { InvalidShare } from "./run-schemas";

/** A uniform number in [0, 1) from (seed, index, salt): no state, so any order can be drawn on its own. */
function unit(seed: number, index: number, salt: number): number {
  let h = (seed ^ Math.imul(index + 1, 0x9e3779b1) ^ Math.imul(salt + 1, 0x85ebca77)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x7feb352d);
  h = Math.imul(h ^ (h >>> 15), 0x846ca68b);
  return ((h ^ (h >>> 16)) >>> 0) / 4294967296;
}

/** Which reason, if any, order `index` is broken for: the shares are stacked in the reasons' fixed order. */
export function drillReason(share: InvalidShare, seed: number, index: number): RejectionReason | null {
  const u = unit(seed, index, 0);
  let edge = 0;
  for (const reason of RejectionReasonSchema.options) {
    edge += share[reason] ?? 0;
    if (u < edge) return reason;
  }
  return null;
}

function pick<T>(items: readonly T[], u: number): T | undefined {
  return items[Math.min(items.length - 1, Math.floor(u * items.length))];
}

/**
 * A valid seeded order broken for exactly `reason`; null when the reference data cannot break it so (no out-of-stock
 * SKU).
 */
export function breakOrder(
  order: OrderRequest,
  reason: RejectionReason,
  reference: ReferenceData,
  u: number,
): OrderRequest | null {
  const [first, ...rest] = order.lines;
  if (!first) return null;
  const withFirstLine = (line: OrderRequest["lines"][number]): OrderRequest => {
    const lines = [line, ...rest];
    return { ...order, lines, total_cents: linesTotal(lines) };
  };
  switch (reason) {
    case "unknown_customer":
      return { ...order, customer_id: `C-DRILL-${String(Math.floor(u * 10_000)).padStart(4, "0")}` };
    case "channel_not_allowed": {
      const customer = pick(
        reference.customerList.filter((c) => c.allowed_channels.length < ChannelSchema.options.length),
        u,
      );
      const channels = ChannelSchema.options.filter((c) => !customer?.allowed_channels.includes(c));
      const channel = pick(channels, u);
      return customer && channel ? { ...order, customer_id: customer.customer_id, channel } : null;
    }
    case "unsupported_currency":
      return { ...order, currency: "EUR" };
    case "unknown_sku":
      return withFirstLine({ ...first, sku: `SKU-X${String(Math.floor(u * 1000)).padStart(3, "0")}` });
    case "out_of_stock": {
      const sku = pick(
        [...reference.skus.values()].filter((s) => !s.in_stock),
        u,
      );
      return sku ? withFirstLine({ ...first, sku: sku.sku, unit_price_cents: sku.unit_price_cents }) : null;
    }
    case "price_mismatch":
      return withFirstLine({ ...first, unit_price_cents: first.unit_price_cents + 1 });
    case "total_mismatch":
      return { ...order, total_cents: order.total_cents + 1 };
  }
}

export interface DrilledOrder {
  readonly order: OrderRequest;
  /** The reason it must be rejected for; null for an order meant to be accepted. */
  readonly expect: RejectionReason | null;
}

export function drilled(
  order: OrderRequest,
  share: InvalidShare,
  seed: number,
  index: number,
  reference: ReferenceData,
): DrilledOrder {
  const reason = drillReason(share, seed, index);
  if (reason === null) return { order, expect: null };
  const broken = breakOrder(order, reason, reference, unit(seed, index, 1));
  return broken ? { order: broken, expect: reason } : { order, expect: null };
}

/** Whether an answer rejected a drill order for the expected reason; the finding's sentence when it did not. */
export function drillFinding(
  expect: RejectionReason,
  index: number,
  status: number,
  problems: readonly string[],
): string | null {
  const rejected = status >= 400 && status < 500;
  if (rejected && problems.some((problem) => reasonOf(problem) === expect)) return null;
  const answer = problems.length > 0 ? `${status} ${problems.join("; ")}` : String(status);
  return `order ${index} was broken for ${expect} and should have been rejected for it, but the target answered ${answer}`;
}
