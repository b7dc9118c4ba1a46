import { z } from "zod";
import { referenceData } from "../reference/reference-data";
import type { Evidence } from "./evidence";
import { insertAuditEvent } from "./audit-trail";
import type { ExceptionSummary, OrderDetails, SimulatedFailure } from "./operations-views";
import { insertOrderRecord, ORDER_COLUMNS, readOrderRecord, recordFromRow, type OrderRecord, type OrderRow } from "./order-records";
import { applyChange, ChangeActionSchema, diffStates, FieldChangeSchema, orderState, type OrderChange } from "./playbook";
import { ORDER_NUMBER_SEQUENCE } from "./seed-loader";

/**
 * D1 side of order operations: reads for the tools, the append-only audit
 * trail, and the exactly-once apply. Every function takes the account and
 * filters by it; another account's order behaves as if it did not exist.
 */
const PRIORITY_RANK: Record<string, number> = { P1: 1, P2: 2, P3: 3, P4: 4 };

function minutesBetween(fromIso: string, now: Date): number {
  return Math.max(0, Math.floor((now.getTime() - Date.parse(fromIso)) / 60_000));
}

function customerName(customerId: string): string {
  return referenceData.customers.get(customerId)?.name ?? customerId;
}

export async function listActiveExceptions(db: D1Database, account: string, now: Date): Promise<ExceptionSummary[]> {
  const { results } = await db
    .prepare(`SELECT ${ORDER_COLUMNS} FROM orders WHERE account = ? AND exception_state = 'active'`)
    .bind(account)
    .all<OrderRow>();
  const summaries = results.map(recordFromRow).flatMap((order): ExceptionSummary[] => {
    const exception = order.exception;
    if (!exception) return [];
    const age = minutesBetween(exception.opened_at, now);
    return [
      {
        order_id: order.order_id,
        customer_name: customerName(order.customer_id),
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
      },
    ];
  });
  // Oldest first by the exact opening time, not the rounded minutes shown.
  const openedAt = new Map(results.map((row) => [row.order_id, Date.parse(row.exception_opened_at ?? row.created_at)]));
  return summaries.sort(
    (a, b) =>
      (PRIORITY_RANK[a.priority] ?? 9) - (PRIORITY_RANK[b.priority] ?? 9) ||
      (openedAt.get(a.order_id) ?? 0) - (openedAt.get(b.order_id) ?? 0) ||
      a.order_id.localeCompare(b.order_id),
  );
}

export async function readOrderDetails(db: D1Database, account: string, orderId: string, now: Date): Promise<OrderDetails | undefined> {
  const order = await readOrderRecord(db, account, orderId);
  if (!order) return undefined;
  const customer = referenceData.customers.get(order.customer_id);
  const evidence = order.evidence;
  let duplicate: OrderDetails["duplicate"] = null;
  if (evidence?.duplicate) {
    const other = await readOrderRecord(db, account, evidence.duplicate.of_order_id);
    duplicate = { ...evidence.duplicate, other_order_status: other?.status ?? null };
  }
  const exception = order.exception;
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
    duplicate,
    exception: exception
      ? {
          exception_type: exception.type,
          state: exception.state,
          priority: exception.priority,
          assigned_team: exception.team,
          age_minutes: minutesBetween(exception.opened_at, now),
          sla_minutes: exception.sla_minutes,
          sla_breached: exception.state === "active" && minutesBetween(exception.opened_at, now) > exception.sla_minutes,
          summary: exception.summary,
        }
      : null,
    timeline: evidence?.timeline ?? [],
  };
}

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

export interface ApplyCommand {
  readonly proposal_id: string;
  readonly account: string;
  readonly order_id: string;
  readonly pinned_version: number;
  readonly change: OrderChange;
  readonly confirmed_by: string;
  readonly approved_by: string;
  readonly approval_reason: string;
}

export type ApplyResult =
  | { readonly kind: "applied" | "already_applied"; readonly outcome: ApplyOutcome }
  | { readonly kind: "stale"; readonly current_version: number }
  | { readonly kind: "not_found" };

async function readApplied(db: D1Database, proposalId: string): Promise<{ attempt_id: string; outcome: ApplyOutcome } | undefined> {
  const row = await db
    .prepare("SELECT attempt_id, outcome FROM applied_proposals WHERE proposal_id = ?")
    .bind(proposalId)
    .first<{ attempt_id: string; outcome: string }>();
  return row ? { attempt_id: row.attempt_id, outcome: ApplyOutcomeSchema.parse(JSON.parse(row.outcome)) } : undefined;
}

/**
 * Applies a pinned change exactly once. The application row (keyed by the
 * proposal id), the version-conditional order update and the audit event are
 * one D1 batch, which D1 runs as one transaction: either all three land or
 * none does, and a second attempt finds the first one's row and changes nothing.
 */
export async function applyProposalChange(db: D1Database, command: ApplyCommand, now: Date): Promise<ApplyResult> {
  const prior = await readApplied(db, command.proposal_id);
  if (prior) return { kind: "already_applied", outcome: prior.outcome };
  const order = await readOrderRecord(db, command.account, command.order_id);
  if (!order) return { kind: "not_found" };
  if (order.version !== command.pinned_version) return { kind: "stale", current_version: order.version };

  const at = now.toISOString();
  const next = applyChange(order, command.change, at);
  const before = orderState(order);
  const after = { ...orderState(next), version: order.version + 1 };
  const outcome: ApplyOutcome = {
    proposal_id: command.proposal_id,
    order_id: order.order_id,
    action: command.change.action,
    applied_at: at,
    applied_by: command.confirmed_by,
    approved_by: command.approved_by,
    order_version_before: order.version,
    order_version_after: order.version + 1,
    changes: diffStates(before, after),
  };
  const attemptId = crypto.randomUUID();
  const ownsApplication = { sql: "EXISTS (SELECT 1 FROM applied_proposals WHERE proposal_id = ? AND attempt_id = ?)", params: [command.proposal_id, attemptId] };

  await db.batch([
    db
      .prepare(
        `INSERT INTO applied_proposals (proposal_id, account, order_id, attempt_id, outcome, applied_at)
         SELECT ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM orders WHERE order_id = ? AND account = ? AND version = ?)
         ON CONFLICT (proposal_id) DO NOTHING`,
      )
      .bind(command.proposal_id, command.account, order.order_id, attemptId, JSON.stringify(outcome), at, order.order_id, command.account, order.version),
    db
      .prepare(
        `UPDATE orders SET status = ?, shipping_address = ?, evidence = ?, exception_state = ?, exception_team = ?,
           version = version + 1, updated_at = ?
         WHERE order_id = ? AND account = ? AND version = ? AND ${ownsApplication.sql}`,
      )
      .bind(
        next.status,
        next.shipping_address ? JSON.stringify(next.shipping_address) : null,
        next.evidence ? JSON.stringify(next.evidence) : null,
        next.exception?.state ?? null,
        next.exception?.team ?? null,
        at,
        order.order_id,
        command.account,
        order.version,
        ...ownsApplication.params,
      ),
    insertAuditEvent(
      db,
      {
        event_id: `${command.proposal_id}:applied`,
        account: command.account,
        order_id: order.order_id,
        event_type: command.change.kind === "address_change" ? "address_change_applied" : "resolution_applied",
        actor_kind: "operator",
        actor: command.confirmed_by,
        reason: `${command.change.action} approved by ${command.approved_by} (${command.approval_reason}); confirmed by ${command.confirmed_by}`,
        proposal_id: command.proposal_id,
        state_before: before,
        state_after: after,
        created_at: at,
      },
      ownsApplication,
    ),
  ]);

  const stored = await readApplied(db, command.proposal_id);
  if (stored) return { kind: stored.attempt_id === attemptId ? "applied" : "already_applied", outcome: stored.outcome };
  const current = await readOrderRecord(db, command.account, command.order_id);
  return current ? { kind: "stale", current_version: current.version } : { kind: "not_found" };
}

type SimulatedKind = "payment_declined_inventory_held" | "fulfillment_hold_missing_sku" | "fulfillment_incomplete_carrier_timeout" | "fraud_review";
const SIMULATED_KINDS: readonly SimulatedKind[] = [
  "payment_declined_inventory_held",
  "fulfillment_hold_missing_sku",
  "fulfillment_incomplete_carrier_timeout",
  "fraud_review",
];

function simulatedOrder(account: string, number: number, now: Date): OrderRecord {
  const orderId = `ORD-${number}`;
  const kind = SIMULATED_KINDS[number % SIMULATED_KINDS.length] ?? "fraud_review";
  const customer = referenceData.customerList[number % referenceData.customerList.length] ?? referenceData.customerList[0];
  if (!customer) throw new Error("seed/customers.json is empty");
  const at = now.toISOString();
  const sku = kind === "fulfillment_hold_missing_sku" ? [...referenceData.skus.values()].find((s) => !s.in_stock) : referenceData.sellable[number % referenceData.sellable.length];
  if (!sku) throw new Error("seed/catalog.json has no usable sku");
  const quantity = 1 + (number % 3);
  const total = sku.unit_price_cents * quantity;
  const allocationState = kind === "payment_declined_inventory_held" ? "held" : kind === "fulfillment_hold_missing_sku" ? "missing" : "allocated";
  const details: Record<SimulatedKind, { status: string; priority: string; team: string; sla: number; summary: string; payment: Evidence["payment"]; fulfillment: Evidence["fulfillment"] }> = {
    payment_declined_inventory_held: {
      status: "payment_failed",
      priority: "P2",
      team: "Payments Ops",
      sla: 60,
      summary: `Simulated: card declined (do_not_honor); ${quantity} unit(s) of ${sku.sku} held.`,
      payment: { state: "declined", attempts: [{ attempt_id: `PAY-${number}-1`, at, amount_cents: total, method: "visa ending 0002", outcome: "declined", decline_code: "do_not_honor" }] },
      fulfillment: { state: "blocked", carrier: null, tracking: null, last_event: "waiting for payment" },
    },
    fulfillment_hold_missing_sku: {
      status: "on_hold",
      priority: "P2",
      team: "Fulfillment Ops",
      sla: 240,
      summary: `Simulated: ${sku.sku} (${sku.name}) has no stock; order held.`,
      payment: { state: "authorized", attempts: [{ attempt_id: `PAY-${number}-1`, at, amount_cents: total, method: "visa ending 4242", outcome: "authorized", decline_code: null }] },
      fulfillment: { state: "on_hold", carrier: null, tracking: null, last_event: `hold: ${sku.sku} has no stock in any warehouse` },
    },
    fulfillment_incomplete_carrier_timeout: {
      status: "processing",
      priority: "P2",
      team: "Logistics",
      sla: 240,
      summary: "Simulated: the carrier label request timed out; the parcel has not left.",
      payment: { state: "captured", attempts: [{ attempt_id: `PAY-${number}-1`, at, amount_cents: total, method: "visa ending 4242", outcome: "captured", decline_code: null }] },
      fulfillment: { state: "label_failed", carrier: "UPS", tracking: null, last_event: "label request timed out at carrier API" },
    },
    fraud_review: {
      status: "on_hold",
      priority: "P1",
      team: "Risk & Trust",
      sla: 30,
      summary: "Simulated: risk score 91 on a new card shipping to a reshipper.",
      payment: { state: "authorized", attempts: [{ attempt_id: `PAY-${number}-1`, at, amount_cents: total, method: "visa ending 7777 (new card)", outcome: "authorized", decline_code: null }] },
      fulfillment: { state: "on_hold", carrier: null, tracking: null, last_event: "hold: risk review" },
    },
  };
  const chosen = details[kind];
  return {
    order_id: orderId,
    account,
    source: "operations",
    customer_id: customer.customer_id,
    channel: customer.allowed_channels[0] ?? "web",
    currency: "USD",
    total_cents: total,
    status: chosen.status,
    version: 1,
    lines: [{ sku: sku.sku, quantity, unit_price_cents: sku.unit_price_cents }],
    shipping_address: { recipient: customer.name, line1: "1 Simulation Way", line2: null, city: "Springfield", region: "IL", postal_code: "62701", country: "US" },
    evidence: {
      payment: chosen.payment,
      inventory: { allocations: [{ sku: sku.sku, quantity, warehouse: "RNO-1", state: allocationState }] },
      fulfillment: chosen.fulfillment,
      duplicate: null,
      timeline: [
        { at, event: "order_placed", detail: `simulated order via ${customer.allowed_channels[0] ?? "web"}` },
        { at, event: "exception_opened", detail: kind },
      ],
    },
    exception: { type: kind, state: "active", priority: chosen.priority, team: chosen.team, opened_at: at, sla_minutes: chosen.sla, summary: chosen.summary },
    created_at: at,
    updated_at: at,
  };
}

const MAX_NUMBER_ALLOCATIONS = 20;

/**
 * The next public order number whose id is free in this account. Intake
 * orders can hold numeric ids too (request_id "1027" becomes ORD-1027), so a
 * number already taken there is skipped rather than collided with.
 */
async function allocateFreeOrderNumber(db: D1Database, account: string): Promise<number> {
  for (let attempt = 0; attempt < MAX_NUMBER_ALLOCATIONS; attempt++) {
    const allocated = await db
      .prepare("UPDATE order_number_sequence SET next_value = next_value + 1 WHERE name = ? RETURNING next_value - 1 AS number")
      .bind(ORDER_NUMBER_SEQUENCE)
      .first<{ number: number }>();
    if (!allocated) throw new Error("order_number_sequence is missing; the seed data was not loaded");
    const taken = await db.prepare("SELECT 1 AS present FROM orders WHERE account = ? AND order_id = ?").bind(account, `ORD-${allocated.number}`).first();
    if (!taken) return allocated.number;
  }
  throw new Error(`no free public order number after ${MAX_NUMBER_ALLOCATIONS} allocations`);
}

/**
 * Demo helper: one new order with an active exception. The public number comes
 * from one atomic UPDATE ... RETURNING, so concurrent calls never share one;
 * the order and its audit event are written together.
 */
export async function simulateFailure(db: D1Database, account: string, actor: string, now: Date): Promise<SimulatedFailure> {
  const number = await allocateFreeOrderNumber(db, account);
  const order = simulatedOrder(account, number, now);
  const exception = order.exception;
  if (!exception) throw new Error("simulated order has no exception");
  await db.batch([
    insertOrderRecord(db, order, "fail"),
    insertAuditEvent(db, {
      event_id: `${order.order_id}:simulated`,
      account,
      order_id: order.order_id,
      event_type: "exception_simulated",
      actor_kind: "operator",
      actor,
      reason: "simulate_new_failure demo helper",
      proposal_id: null,
      state_before: null,
      state_after: orderState(order),
      created_at: order.created_at,
    }),
  ]);
  return { order_id: order.order_id, exception_type: exception.type, priority: exception.priority, summary: exception.summary, version: order.version };
}
