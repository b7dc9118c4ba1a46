import type { OrderLine } from "../../orders/intake-schemas";
import { ChannelSchema, type ReferenceData } from "../../orders/reference-data";
import { ACCEPTED_CURRENCY, linesTotal } from "../../orders/validate-order";
import type { Prng } from "../prng";
import { type GeneratorModeDefinition, MAX_QUANTITY } from "./generator-mode";

const MAX_LINES = 4;

function fourDigits(rng: Prng): string {
  return String(rng.int(0, 9999)).padStart(4, "0");
}

/** A random SKU that is guaranteed not to be in the catalog, so rejection is certain. */
function unknownSku(rng: Prng, reference: ReferenceData): string {
  for (;;) {
    const sku = `SKU-${fourDigits(rng)}`;
    if (!reference.skus.has(sku)) return sku;
  }
}

/** Invents every field, so the order API rejects every order: it drills the rejection path. */
export const simple: GeneratorModeDefinition<"simple"> = {
  name: "simple",
  description: "ones are rejected (422), to drill rejections.",
  order(rng, reference) {
    const requestId = rng.uuid();
    const customerId = `C-${fourDigits(rng)}`;
    const channel = rng.pick(ChannelSchema.options);
    const lines: OrderLine[] = Array.from({ length: rng.int(1, MAX_LINES) }, () => ({
      sku: unknownSku(rng, reference),
      quantity: rng.int(1, MAX_QUANTITY),
      unit_price_cents: rng.int(100, 9999),
    }));
    return {
      request_id: requestId,
      customer_id: customerId,
      channel,
      currency: ACCEPTED_CURRENCY,
      lines,
      total_cents: linesTotal(lines),
    };
  },
  skip(rng, reference) {
    for (let draw = 0; draw < 18; draw++) rng.next();
    const lines = rng.int(1, MAX_LINES);
    for (let line = 0; line < lines; line++) {
      unknownSku(rng, reference);
      rng.next();
      rng.next();
    }
  },
};
