import type { OrderLine } from "../../orders/intake-schemas";
import { ACCEPTED_CURRENCY, linesTotal } from "../../orders/validate-order";
import { type GeneratorModeDefinition, MAX_QUANTITY } from "./generator-mode";

const MAX_LINES = 3;

/** Samples the real catalog and customers, so the order API accepts every order. */
export const seeded: GeneratorModeDefinition<"seeded"> = {
  name: "seeded",
  description: "orders are accepted (201);",
  order(rng, reference) {
    const requestId = rng.uuid();
    const customer = rng.pick(reference.customerList);
    const channel = rng.pick(customer.allowed_channels);
    const skus = rng.sample(reference.sellable, rng.int(1, Math.min(MAX_LINES, reference.sellable.length)));
    const lines: OrderLine[] = skus.map((sku) => ({
      sku: sku.sku,
      quantity: rng.int(1, MAX_QUANTITY),
      unit_price_cents: sku.unit_price_cents,
    }));
    return {
      request_id: requestId,
      customer_id: customer.customer_id,
      channel,
      currency: ACCEPTED_CURRENCY,
      lines,
      total_cents: linesTotal(lines),
    };
  },
  skip(rng, reference) {
    // The request id's sixteen draws, the customer, the channel.
    for (let draw = 0; draw < 18; draw++) rng.next();
    const lines = rng.int(1, Math.min(MAX_LINES, reference.sellable.length));
    // Each line's SKU and quantity.
    for (let draw = 0; draw < 2 * lines; draw++) rng.next();
  },
};
