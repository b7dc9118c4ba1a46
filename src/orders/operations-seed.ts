/**
 * The operations dataset in seed/operations.json. Times in the file are
 * "minutes before the load", so a fresh environment always shows exceptions
 * of realistic ages. Parsed on first use, not at import: the Worker's startup
 * does not pay for a file it needs once per database.
 */
import { z } from "zod/v4";
import operationsJson from "../../seed/operations.json";
import { AccountIdSchema } from "../core/account-id";
import {
  AddressSchema,
  AllocationSchema,
  DuplicateEvidenceSchema,
  type Evidence,
  ExceptionTypeSchema,
  FulfillmentSchema,
  PaymentAttemptSchema,
  PaymentSchema,
  PrioritySchema,
} from "./evidence";
import { OrderLineSchema } from "./intake-schemas";
import type { OrderRecord } from "./order-record";

const minutesAgo = z.number().int().min(0);

const SeedOrderSchema = z.object({
  order_id: z.string().regex(/^ORD-\d{4,}$/),
  account: AccountIdSchema,
  customer_id: z.string(),
  channel: z.string(),
  status: z.string(),
  created_minutes_ago: minutesAgo,
  lines: z.array(OrderLineSchema).min(1),
  total_cents: z.number().int(),
  shipping_address: AddressSchema,
  payment: PaymentSchema.extend({
    // Seed times are relative to the load: "minutes ago" instead of a timestamp.
    attempts: z.array(PaymentAttemptSchema.omit({ at: true }).extend({ at_minutes_ago: minutesAgo })),
  }),
  inventory: z.object({ allocations: z.array(AllocationSchema) }),
  fulfillment: FulfillmentSchema,
  duplicate: DuplicateEvidenceSchema.nullable(),
  exception: z
    .object({
      type: ExceptionTypeSchema,
      priority: PrioritySchema,
      assigned_team: z.string(),
      opened_minutes_ago: minutesAgo,
      sla_minutes: z.number().int().positive(),
      summary: z.string(),
    })
    .nullable(),
  timeline: z.array(z.object({ at_minutes_ago: minutesAgo, event: z.string(), detail: z.string() })),
});
type SeedOrder = z.infer<typeof SeedOrderSchema>;

let parsed: readonly SeedOrder[] | undefined;

export function seedOrders(): readonly SeedOrder[] {
  parsed ??= z.object({ orders: z.array(SeedOrderSchema) }).parse(operationsJson).orders;
  return parsed;
}

function isoMinutesBefore(anchorMs: number, minutes: number): string {
  return new Date(anchorMs - minutes * 60_000).toISOString();
}

function toEvidence(order: SeedOrder, anchorMs: number): Evidence {
  return {
    payment: {
      state: order.payment.state,
      attempts: order.payment.attempts.map(({ at_minutes_ago, ...attempt }) => ({
        ...attempt,
        at: isoMinutesBefore(anchorMs, at_minutes_ago),
      })),
    },
    inventory: order.inventory,
    fulfillment: order.fulfillment,
    duplicate: order.duplicate,
    timeline: order.timeline.map(({ at_minutes_ago, ...entry }) => ({
      ...entry,
      at: isoMinutesBefore(anchorMs, at_minutes_ago),
    })),
  };
}

/** A seed order as the record it becomes, with its times anchored to the load. */
export function seedRecord(order: SeedOrder, anchorMs: number): OrderRecord {
  const created = isoMinutesBefore(anchorMs, order.created_minutes_ago);
  const exception = order.exception;
  return {
    order_id: order.order_id,
    account: order.account,
    source: "operations",
    customer_id: order.customer_id,
    channel: order.channel,
    currency: "USD",
    total_cents: order.total_cents,
    status: order.status,
    version: 1,
    lines: order.lines,
    shipping_address: order.shipping_address,
    evidence: toEvidence(order, anchorMs),
    exception: exception
      ? {
          type: exception.type,
          state: "active",
          priority: exception.priority,
          team: exception.assigned_team,
          opened_at: isoMinutesBefore(anchorMs, exception.opened_minutes_ago),
          sla_minutes: exception.sla_minutes,
          summary: exception.summary,
        }
      : null,
    created_at: created,
    updated_at: created,
  };
}
