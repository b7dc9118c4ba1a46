import type { ReferenceData } from "./reference-data";
import type { OrderRequest } from "./intake-schemas";

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
    problems.push(`unknown customer ${order.customer_id}`);
  } else if (!(customer.allowed_channels as readonly string[]).includes(order.channel)) {
    problems.push(
      `channel ${order.channel} is not allowed for customer ${customer.customer_id} (allowed: ${customer.allowed_channels.join(", ")})`,
    );
  }
  if (order.currency !== ACCEPTED_CURRENCY) {
    problems.push(`unsupported currency ${order.currency}; only ${ACCEPTED_CURRENCY} is accepted`);
  }
  for (const line of order.lines) {
    const sku = reference.skus.get(line.sku);
    if (!sku) {
      problems.push(`unknown sku ${line.sku}`);
      continue;
    }
    if (!sku.in_stock) problems.push(`sku ${line.sku} is out of stock`);
    if (line.unit_price_cents !== sku.unit_price_cents) {
      problems.push(`price mismatch for ${line.sku}: sent ${line.unit_price_cents}, expected ${sku.unit_price_cents}`);
    }
  }
  const expected = linesTotal(order.lines);
  if (order.total_cents !== expected) {
    problems.push(`total mismatch: sent ${order.total_cents}, expected ${expected}`);
  }
  return problems;
}
