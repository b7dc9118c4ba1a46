/**
 * The order intake contract. The API parses requests with these schemas, the
 * generators produce values of these types, and the MCP tools describe their
 * outputs with them: one definition, no hand-written copies. The request also
 * drives what is stored and compared (store/intake-orders.ts): each of its
 * fields is the column of its name, a replay must match every one of them,
 * and the view shows them all.
 */
import { z } from "zod/v4";

export const OrderLineSchema = z.object({
  sku: z.string().min(1).max(64).describe("Catalog SKU, e.g. SKU-5510"),
  quantity: z.number().int().min(1).max(1000).describe("Units ordered, 1-1000"),
  unit_price_cents: z
    .number()
    .int()
    .min(0)
    .max(100_000_000)
    .describe("Price per unit in cents; must match the catalog"),
});
export type OrderLine = z.infer<typeof OrderLineSchema>;

/** Stored and answered order lines; built once, as every order read parses them. */
export const OrderLinesSchema = z.array(OrderLineSchema);

export const OrderRequestSchema = z.object({
  request_id: z
    .string()
    .min(1)
    .max(128)
    .regex(/^[A-Za-z0-9][A-Za-z0-9._:-]*$/, "use letters, digits and . _ : - only")
    .describe("Idempotency key: the same request_id again returns the original order"),
  customer_id: z.string().min(1).max(64).describe("Customer id, e.g. CUST-0005"),
  channel: z.string().min(1).max(32).describe("Sales channel; must be one the customer allows"),
  currency: z.string().min(1).max(8).describe("Only USD is accepted"),
  lines: z.array(OrderLineSchema).min(1).max(100).describe("1-100 order lines"),
  total_cents: z.number().int().min(0).describe("Sum of quantity x unit_price_cents over all lines"),
});
export type OrderRequest = z.infer<typeof OrderRequestSchema>;

/** What POST /api/orders answers for an accepted (201) or replayed (200) order. */
const OrderReceiptSchema = z.object({
  order_id: z.string(),
  customer_id: z.string(),
  lines: z.number().int().describe("Number of order lines"),
  total_cents: z.number().int(),
});
export type OrderReceipt = z.infer<typeof OrderReceiptSchema>;

export const HealthSchema = z.object({
  status: z.literal("ok"),
  skus: z.number().int(),
  customers: z.number().int(),
});
export type Health = z.infer<typeof HealthSchema>;

/**
 * What GET /api/orders/:id answers for an order of the caller's account: every
 * field of the request but its idempotency key, as stored, with the order's
 * id, status and time. Built from the request, so a new request field is shown.
 */
export const OrderViewSchema = OrderRequestSchema.omit({ request_id: true }).extend({
  order_id: z.string(),
  status: z.string(),
  created_at: z.string(),
});
export type OrderView = z.infer<typeof OrderViewSchema>;

/**
 * Headers a caller inside the deployment (the AccountAgent, through the
 * ORDER_API binding) sends with every intake request; only the internal
 * entrypoint reads them, the public /api mount never does. Any other target
 * that ORDER_API is pointed at receives them too, to attribute orders.
 */
export const ACCOUNT_HEADER = "x-order-ops-account";

/** Who the orders are sent for (the operator), percent-encoded, for audit events. */
export const ACTOR_HEADER = "x-order-ops-actor";

/**
 * When a traffic run scheduled the order (epoch ms): a target's own log can
 * time each order from its schedule, as the run does. The intake API ignores
 * it; idempotency rests on request_id alone.
 */
export const SCHEDULED_AT_HEADER = "x-order-ops-scheduled-at";

/** Who placed an intake order, for its audit event: the account from the credential and who acted. */
export interface IntakeCaller {
  readonly account: string;
  readonly actor: string;
}
