import type { OrderRequest } from "./intake-schemas";
import type { ReferenceData } from "./reference-data";
import { rejectionMessage as say } from "./rejections";

export const ACCEPTED_CURRENCY = "USD";

/** The total an order must declare: the sum of its own lines as sent. */
export function linesTotal(lines: OrderRequest["lines"]): number {
  return lines.reduce((sum, line) => sum + line.quantity * line.unit_price_cents, 0);
}

/**
 * Every business rule an order breaks, in a stable order, so a caller fixes
 * them all in one round trip instead of discovering them one at a time.
 */
export function findOrderProblems(order: OrderRequest, reference: ReferenceData): string[] {
  const problems: string[] = [];
  const customer = reference.customers.get(order.customer_id);
  if (!customer) {
    problems.push(say.unknownCustomer(order.customer_id));
  } else if (!(customer.allowed_channels as readonly string[]).includes(order.channel)) {
    problems.push(say.channelNotAllowed(order.channel, customer.customer_id, customer.allowed_channels));
  }
  if (order.currency !== ACCEPTED_CURRENCY) {
    problems.push(say.unsupportedCurrency(order.currency, ACCEPTED_CURRENCY));
  }
  for (const line of order.lines) {
    const sku = reference.skus.get(line.sku);
    if (!sku) {
      problems.push(say.unknownSku(line.sku));
      continue;
    }
    if (!sku.in_stock) problems.push(say.outOfStock(line.sku));
    if (line.unit_price_cents !== sku.unit_price_cents) {
      problems.push(say.priceMismatch(line.sku, line.unit_price_cents, sku.unit_price_cents));
    }
  }
  const expected = linesTotal(order.lines);
  if (order.total_cents !== expected) {
    problems.push(say.totalMismatch(order.total_cents, expected));
  }
  return problems;
}
