/** What the operations tools answer; the tool output schemas are these. */
import { z } from "zod/v4";
import { ActorKindSchema } from "./audit-event";
import { ChangeActionSchema } from "./change-kinds";
import {
  AddressSchema,
  DuplicateEvidenceSchema,
  ExceptionTypeSchema,
  FulfillmentSchema,
  InventorySchema,
  PaymentSchema,
  PrioritySchema,
  TimelineEntrySchema,
} from "./evidence";
import { OrderLinesSchema } from "./intake-schemas";
import type { OrderRecord } from "./order-record";
import { FieldChangeSchema, OrderStateSchema } from "./order-state";
import { referenceData } from "./reference-data";

/** One message for "unknown" and "another account's": a caller cannot tell them apart. */
export const ORDER_NOT_FOUND_MESSAGE = "order not found; list_order_exceptions shows the orders you can act on";

export const OrderStatusSchema = z.object({
  order_id: z.string(),
  status: z.string(),
  version: z.number().int().describe("Changes whenever the order changes; proposals pin it"),
});
export type OrderStatus = z.infer<typeof OrderStatusSchema>;

const ExceptionSummarySchema = z.object({
  order_id: z.string(),
  customer_name: z.string(),
  created_at: z.string(),
  exception_type: ExceptionTypeSchema,
  priority: PrioritySchema,
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
  lines: OrderLinesSchema,
  total_cents: z.number().int(),
  currency: z.string(),
  shipping_address: AddressSchema.nullable(),
  payment: PaymentSchema.nullable(),
  inventory: InventorySchema.nullable(),
  fulfillment: FulfillmentSchema.nullable(),
  duplicate: DuplicateEvidenceSchema.extend({ other_order_status: z.string().nullable() }).nullable(),
  exception: ExceptionSummarySchema.omit({
    order_id: true,
    customer_name: true,
    created_at: true,
    order_value_cents: true,
    currency: true,
  })
    .extend({ state: z.string() })
    .nullable(),
  timeline: z.array(TimelineEntrySchema),
});
export type OrderDetails = z.infer<typeof OrderDetailsSchema>;

export const AuditEventSchema = z.object({
  event_id: z.string(),
  at: z.string(),
  event_type: z.string(),
  actor_kind: ActorKindSchema,
  actor: z.string(),
  reason: z.string(),
  proposal_id: z.string().nullable(),
  state_before: OrderStateSchema.nullable(),
  state_after: OrderStateSchema.nullable(),
});
export type AuditEvent = z.infer<typeof AuditEventSchema>;

export const AuditLogSchema = z.object({
  order_id: z.string(),
  events: z.array(AuditEventSchema).describe("Oldest first; one page of the log"),
  next_cursor: z
    .string()
    .nullable()
    .describe("Pass this as `cursor` to get the next page; null when this page reaches the newest event"),
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

// ------------------------------------------------------------ view builders

const PRIORITY_RANK: Record<string, number> = { P1: 1, P2: 2, P3: 3, P4: 4 };

function minutesBetween(fromIso: string, now: Date): number {
  return Math.max(0, Math.floor((now.getTime() - Date.parse(fromIso)) / 60_000));
}

/** What the exception queue reads of an order: no lines, address or evidence. */
type QueuedOrder = Pick<
  OrderRecord,
  "order_id" | "customer_id" | "created_at" | "total_cents" | "currency" | "exception"
>;

/** One row of the exception queue, or undefined for an order without an active exception. */
function exceptionSummary(order: QueuedOrder, now: Date): ExceptionSummary | undefined {
  const exception = order.exception;
  if (exception?.state !== "active") return undefined;
  const age = minutesBetween(exception.opened_at, now);
  return {
    order_id: order.order_id,
    customer_name: referenceData.customers.get(order.customer_id)?.name ?? order.customer_id,
    created_at: order.created_at,
    exception_type: exception.type,
    priority: exception.priority,
    assigned_team: exception.team,
    age_minutes: age,
    sla_minutes: exception.sla_minutes,
    sla_breached: age > exception.sla_minutes,
    order_value_cents: order.total_cents,
    currency: order.currency,
    summary: exception.summary,
  };
}

/** The exception queue, most urgent first: priority, then the exact opening time (not the rounded age), then id. */
export function exceptionQueue(orders: readonly QueuedOrder[], now: Date): ExceptionSummary[] {
  const openedAt = (order: QueuedOrder) => Date.parse(order.exception?.opened_at ?? order.created_at);
  return [...orders]
    .sort(
      (a, b) =>
        (PRIORITY_RANK[a.exception?.priority ?? ""] ?? 9) - (PRIORITY_RANK[b.exception?.priority ?? ""] ?? 9) ||
        openedAt(a) - openedAt(b) ||
        a.order_id.localeCompare(b.order_id),
    )
    .flatMap((order) => exceptionSummary(order, now) ?? []);
}

/** The evidence view of one order; `duplicateOfStatus` is the status of the order it duplicates, when known. */
export function orderDetails(order: OrderRecord, duplicateOfStatus: string | null, now: Date): OrderDetails {
  const customer = referenceData.customers.get(order.customer_id);
  const evidence = order.evidence;
  const exception = order.exception;
  const age = exception ? minutesBetween(exception.opened_at, now) : 0;
  return {
    order_id: order.order_id,
    status: order.status,
    version: order.version,
    channel: order.channel,
    created_at: order.created_at,
    customer: {
      customer_id: order.customer_id,
      name: customer?.name ?? order.customer_id,
      email: customer?.email ?? "unknown",
      tier: customer?.tier ?? "unknown",
    },
    lines: [...order.lines],
    total_cents: order.total_cents,
    currency: order.currency,
    shipping_address: order.shipping_address,
    payment: evidence?.payment ?? null,
    inventory: evidence?.inventory ?? null,
    fulfillment: evidence?.fulfillment ?? null,
    duplicate: evidence?.duplicate ? { ...evidence.duplicate, other_order_status: duplicateOfStatus } : null,
    exception: exception
      ? {
          exception_type: exception.type,
          state: exception.state,
          priority: exception.priority,
          assigned_team: exception.team,
          age_minutes: age,
          sla_minutes: exception.sla_minutes,
          sla_breached: exception.state === "active" && age > exception.sla_minutes,
          summary: exception.summary,
        }
      : null,
    timeline: evidence?.timeline ?? [],
  };
}
