import { z } from "zod";
import operationsJson from "../../seed/operations.json";
import { AccountIdSchema } from "../config";
import { insertOrderRecord, type OrderRecord } from "../store/order-rows";
import { OrderLineSchema } from "../orders/intake-schemas";
import {
  AddressSchema,
  AllocationSchema,
  DuplicateEvidenceSchema,
  ExceptionTypeSchema,
  FulfillmentSchema,
  PrioritySchema,
  type Evidence,
} from "../orders/evidence";

/**
 * Loads seed/operations.json into D1. Times in the file are "minutes before the
 * load", so a fresh environment always shows exceptions of realistic ages; the
 * load happens once per database and never overwrites a row.
 */
export const SEED_VERSION = "operations-v1";

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
  payment: z.object({
    state: z.enum(["captured", "authorized", "declined", "refunded", "voided"]),
    attempts: z.array(
      z.object({
        attempt_id: z.string(),
        at_minutes_ago: minutesAgo,
        amount_cents: z.number().int(),
        method: z.string(),
        outcome: z.enum(["captured", "authorized", "declined", "refunded", "voided"]),
        decline_code: z.string().nullable(),
      }),
    ),
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
export type SeedOrder = z.infer<typeof SeedOrderSchema>;

export const seedOrders: readonly SeedOrder[] = z.object({ orders: z.array(SeedOrderSchema) }).parse(operationsJson).orders;

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
    timeline: order.timeline.map(({ at_minutes_ago, ...entry }) => ({ ...entry, at: isoMinutesBefore(anchorMs, at_minutes_ago) })),
  };
}

/** A seed order as the record it becomes, with its times anchored to the load. */
function toRecord(order: SeedOrder, anchorMs: number): OrderRecord {
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

/**
 * Idempotent: every insert is OR IGNORE and the whole load is one D1 batch (one
 * transaction), so concurrent first requests cannot interleave half-loads.
 */
export async function loadSeed(db: D1Database, now: Date = new Date()): Promise<"loaded" | "already_loaded"> {
  const existing = await db.prepare("SELECT 1 AS present FROM seed_runs WHERE seed_version = ?").bind(SEED_VERSION).first();
  if (existing) return "already_loaded";
  const anchorMs = Math.floor(now.getTime() / 60_000) * 60_000;
  await db.batch([
    db.prepare("INSERT OR IGNORE INTO seed_runs (seed_version, anchored_at) VALUES (?, ?)").bind(SEED_VERSION, new Date(anchorMs).toISOString()),
    ...seedOrders.map((order) => insertOrderRecord(db, toRecord(order, anchorMs), "ignore")),
  ]);
  return "loaded";
}

const loadedDatabases = new WeakMap<D1Database, Promise<unknown>>();

/** Runs loadSeed at most once per isolate and database binding; retries after a failure. */
export function ensureSeedLoaded(db: D1Database): Promise<unknown> {
  let pending = loadedDatabases.get(db);
  if (!pending) {
    pending = loadSeed(db).catch((error: unknown) => {
      loadedDatabases.delete(db);
      throw error;
    });
    loadedDatabases.set(db, pending);
  }
  return pending;
}
