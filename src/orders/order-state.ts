import { z } from "zod/v4";
import { type Address, AddressSchema } from "./evidence";
import type { OrderRecord } from "./order-record";

/** What an order looks like for the audit log and the approval page: the fields a change can touch. */
export const OrderStateSchema = z.object({
  status: z.string(),
  version: z.number().int(),
  exception: z.object({ type: z.string(), state: z.string(), team: z.string() }).nullable(),
  payment: z.string().nullable(),
  inventory: z.array(z.string()),
  fulfillment: z.string().nullable(),
  shipping_address: AddressSchema.nullable(),
});
export type OrderState = z.infer<typeof OrderStateSchema>;

export function orderState(order: OrderRecord): OrderState {
  return {
    status: order.status,
    version: order.version,
    exception: order.exception
      ? { type: order.exception.type, state: order.exception.state, team: order.exception.team }
      : null,
    payment: order.evidence?.payment.state ?? null,
    inventory: (order.evidence?.inventory.allocations ?? []).map(
      (a) => `${a.sku} x${a.quantity} ${a.state} (${a.warehouse})`,
    ),
    fulfillment: order.evidence
      ? `${order.evidence.fulfillment.state}: ${order.evidence.fulfillment.last_event}`
      : null,
    shipping_address: order.shipping_address,
  };
}

export function formatAddress(address: Address | null): string {
  if (!address) return "(none)";
  return [
    address.recipient,
    address.line1,
    address.line2,
    `${address.city}, ${address.region} ${address.postal_code}`,
    address.country,
  ]
    .filter((part) => part !== null && part !== "")
    .join(", ");
}

export const FieldChangeSchema = z.object({ field: z.string(), before: z.string(), after: z.string() });
export type FieldChange = z.infer<typeof FieldChangeSchema>;

/** The human-readable difference between two states: one row per field that changes. */
export function diffStates(before: OrderState, after: OrderState): FieldChange[] {
  const rows: FieldChange[] = [];
  const add = (field: string, a: string, b: string) => {
    if (a !== b) rows.push({ field, before: a, after: b });
  };
  add("status", before.status, after.status);
  add(
    "exception",
    before.exception ? `${before.exception.type} ${before.exception.state} (${before.exception.team})` : "none",
    after.exception ? `${after.exception.type} ${after.exception.state} (${after.exception.team})` : "none",
  );
  add("payment", before.payment ?? "none", after.payment ?? "none");
  add("inventory", before.inventory.join("; ") || "none", after.inventory.join("; ") || "none");
  add("fulfillment", before.fulfillment ?? "none", after.fulfillment ?? "none");
  add("shipping_address", formatAddress(before.shipping_address), formatAddress(after.shipping_address));
  return rows;
}
