import { z } from "zod";
import { AddressSchema, DuplicateEvidenceSchema, FulfillmentSchema, InventorySchema, PaymentSchema, TimelineEntrySchema } from "../orders/evidence";
import { ChangeActionSchema, FieldChangeSchema, OrderStateSchema } from "../orders/playbook";
import { OrderLineSchema } from "../orders/intake-schemas";

/** What the operations tools answer; the tool output schemas are these. */

/** One message for "unknown" and "another account's": a caller cannot tell them apart. */
export const ORDER_NOT_FOUND_MESSAGE = "order not found; list_order_exceptions shows the orders you can act on";

export const OrderStatusSchema = z.object({
  order_id: z.string(),
  status: z.string(),
  version: z.number().int().describe("Changes whenever the order changes; proposals pin it"),
});
export type OrderStatus = z.infer<typeof OrderStatusSchema>;

export const ExceptionSummarySchema = z.object({
  order_id: z.string(),
  customer_name: z.string(),
  created_at: z.string(),
  exception_type: z.string(),
  priority: z.string().describe("P1 is the most urgent"),
  assigned_team: z.string(),
  age_minutes: z.number().int().describe("Minutes since the exception was opened"),
  sla_minutes: z.number().int().describe("Response SLA for this exception"),
  sla_breached: z.boolean(),
  order_value_cents: z.number().int(),
  currency: z.string(),
  summary: z.string(),
});
export type ExceptionSummary = z.infer<typeof ExceptionSummarySchema>;

export const ExceptionListSchema = z.object({
  count: z.number().int(),
  exceptions: z.array(ExceptionSummarySchema).describe("Sorted by priority, then oldest first"),
});

export const OrderDetailsSchema = z.object({
  order_id: z.string(),
  status: z.string(),
  version: z.number().int(),
  channel: z.string(),
  created_at: z.string(),
  customer: z.object({ customer_id: z.string(), name: z.string(), email: z.string(), tier: z.string() }),
  lines: z.array(OrderLineSchema),
  total_cents: z.number().int(),
  currency: z.string(),
  shipping_address: AddressSchema.nullable(),
  payment: PaymentSchema.nullable(),
  inventory: InventorySchema.nullable(),
  fulfillment: FulfillmentSchema.nullable(),
  duplicate: DuplicateEvidenceSchema.extend({ other_order_status: z.string().nullable() }).nullable(),
  exception: ExceptionSummarySchema.omit({ order_id: true, customer_name: true, created_at: true, order_value_cents: true, currency: true })
    .extend({ state: z.string() })
    .nullable(),
  timeline: z.array(TimelineEntrySchema),
});
export type OrderDetails = z.infer<typeof OrderDetailsSchema>;

export const AuditEventSchema = z.object({
  event_id: z.string(),
  at: z.string(),
  event_type: z.string(),
  actor_kind: z.enum(["operator", "approver", "system"]),
  actor: z.string(),
  reason: z.string(),
  proposal_id: z.string().nullable(),
  state_before: OrderStateSchema.nullable(),
  state_after: OrderStateSchema.nullable(),
});
export type AuditEvent = z.infer<typeof AuditEventSchema>;

export const AuditLogSchema = z.object({
  order_id: z.string(),
  events: z.array(AuditEventSchema).describe("Oldest first"),
});
export type AuditLog = z.infer<typeof AuditLogSchema>;

export const SimulatedFailureSchema = z.object({
  order_id: z.string(),
  exception_type: z.string(),
  priority: z.string(),
  summary: z.string(),
  version: z.number().int(),
});
export type SimulatedFailure = z.infer<typeof SimulatedFailureSchema>;

export const ApplyOutcomeSchema = z.object({
  proposal_id: z.string(),
  order_id: z.string(),
  action: ChangeActionSchema,
  applied_at: z.string(),
  applied_by: z.string().describe("Operator whose confirmation applied the change"),
  approved_by: z.string().describe("Approver who approved it in the application"),
  order_version_before: z.number().int(),
  order_version_after: z.number().int(),
  changes: z.array(FieldChangeSchema),
});
export type ApplyOutcome = z.infer<typeof ApplyOutcomeSchema>;
