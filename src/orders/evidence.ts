/**
 * The evidence an operations order carries: what get_order_details shows and
 * what the resolution playbook reasons about. Stored as JSON on the order row.
 */
import { z } from "zod/v4";

export const AddressSchema = z.object({
  recipient: z.string().min(1).max(120).describe("Name on the parcel"),
  line1: z.string().min(1).max(120).describe("Street address"),
  line2: z.string().max(120).nullable().describe("Apartment, suite or unit; null when none"),
  city: z.string().min(1).max(80),
  region: z.string().min(1).max(80).describe("State, province or region code, e.g. CA"),
  postal_code: z.string().min(1).max(16),
  country: z.string().length(2).describe("ISO 3166-1 alpha-2 country code, e.g. US"),
});
export type Address = z.infer<typeof AddressSchema>;

/** Where a payment, or one attempt at it, stands. */
const PaymentStateSchema = z.enum(["captured", "authorized", "declined", "refunded", "voided"]);

export const PaymentAttemptSchema = z.object({
  attempt_id: z.string(),
  at: z.string(),
  amount_cents: z.number().int(),
  method: z.string(),
  outcome: PaymentStateSchema,
  decline_code: z.string().nullable(),
});

export const PaymentSchema = z.object({
  state: PaymentStateSchema,
  attempts: z.array(PaymentAttemptSchema),
});
export type Payment = z.infer<typeof PaymentSchema>;

/** Where one line's stock stands. */
const AllocationStateSchema = z.enum(["allocated", "held", "missing", "shipped", "released", "backordered"]);
export type AllocationState = z.infer<typeof AllocationStateSchema>;

export const AllocationSchema = z.object({
  sku: z.string(),
  quantity: z.number().int(),
  warehouse: z.string(),
  state: AllocationStateSchema,
});

export const InventorySchema = z.object({ allocations: z.array(AllocationSchema) });

export const FulfillmentSchema = z.object({
  state: z.string(),
  carrier: z.string().nullable(),
  tracking: z.string().nullable(),
  last_event: z.string(),
});

export const DuplicateEvidenceSchema = z.object({
  of_order_id: z.string(),
  signals: z.array(z.string()),
});

export const TimelineEntrySchema = z.object({ at: z.string(), event: z.string(), detail: z.string() });

export const EvidenceSchema = z.object({
  payment: PaymentSchema,
  inventory: InventorySchema,
  fulfillment: FulfillmentSchema,
  duplicate: DuplicateEvidenceSchema.nullable(),
  timeline: z.array(TimelineEntrySchema),
});
export type Evidence = z.infer<typeof EvidenceSchema>;

export const ExceptionTypeSchema = z.enum([
  "duplicate_order",
  "payment_declined_inventory_held",
  "fulfillment_hold_missing_sku",
  "fulfillment_incomplete_carrier_timeout",
  "fraud_review",
]);
export type ExceptionType = z.infer<typeof ExceptionTypeSchema>;

/** Where an order's exception stands: open (active), or closed by the playbook or by handing it to a person. */
const ExceptionStateSchema = z.enum(["active", "resolved", "escalated"]);
export type ExceptionState = z.infer<typeof ExceptionStateSchema>;

export const PrioritySchema = z.enum(["P1", "P2", "P3", "P4"]).describe("P1 is the most urgent");
export type Priority = z.infer<typeof PrioritySchema>;
