/**
 * The business rules an intake order can break, each with the sentence the
 * intake API answers and the test that recognizes that sentence in any API's
 * answer. The validator writes with these builders and a rejection drill
 * reads answers back with the matchers, so the two cannot drift apart.
 */
import { z } from "zod/v4";

export const RejectionReasonSchema = z.enum([
  "unknown_customer",
  "channel_not_allowed",
  "unsupported_currency",
  "unknown_sku",
  "out_of_stock",
  "price_mismatch",
  "total_mismatch",
]);
export type RejectionReason = z.infer<typeof RejectionReasonSchema>;

export const rejectionMessage = {
  unknownCustomer: (customerId: string) => `unknown customer ${customerId}`,
  channelNotAllowed: (channel: string, customerId: string, allowed: readonly string[]) =>
    `channel ${channel} is not allowed for customer ${customerId} (allowed: ${allowed.join(", ")})`,
  unsupportedCurrency: (currency: string, accepted: string) =>
    `unsupported currency ${currency}; only ${accepted} is accepted`,
  unknownSku: (sku: string) => `unknown sku ${sku}`,
  outOfStock: (sku: string) => `sku ${sku} is out of stock`,
  priceMismatch: (sku: string, sent: number, expected: number) =>
    `price mismatch for ${sku}: sent ${sent}, expected ${expected}`,
  totalMismatch: (sent: number, expected: number) => `total mismatch: sent ${sent}, expected ${expected}`,
} as const;

const MATCHERS: Record<RejectionReason, RegExp> = {
  unknown_customer: /^unknown customer /,
  channel_not_allowed: /^channel \S+ is not allowed for customer /,
  unsupported_currency: /^unsupported currency /,
  unknown_sku: /^unknown sku /,
  out_of_stock: /^sku \S+ is out of stock$/,
  price_mismatch: /^price mismatch for /,
  total_mismatch: /^total mismatch: /,
};

/** The rule one line of an API's rejection names, if it is one of ours. */
export function reasonOf(problem: string): RejectionReason | undefined {
  return RejectionReasonSchema.options.find((reason) => MATCHERS[reason].test(problem));
}
