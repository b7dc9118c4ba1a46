import { referenceData } from "../orders/reference-data";
import { insertAuditEvent } from "../store/audit-events";
import { ApplyOutcomeSchema, type ApplyOutcome, type ExceptionSummary, type OrderDetails } from "../orders/views";
import { ORDER_COLUMNS, readOrderRecord, recordFromRow, type OrderRow } from "../store/order-rows";
import { applyChange, diffStates, orderState, type OrderChange } from "../orders/playbook";

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

async function readApplied(db: D1Database, account: string, proposalId: string): Promise<{ attempt_id: string; outcome: ApplyOutcome } | undefined> {
  const row = await db
    .prepare("SELECT attempt_id, outcome FROM applied_proposals WHERE account = ? AND proposal_id = ?")
    .bind(account, proposalId)
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
  const prior = await readApplied(db, command.account, command.proposal_id);
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
  const ownsApplication = {
    sql: "EXISTS (SELECT 1 FROM applied_proposals WHERE account = ? AND proposal_id = ? AND attempt_id = ?)",
    params: [command.account, command.proposal_id, attemptId],
  };

  await db.batch([
    db
      .prepare(
        `INSERT INTO applied_proposals (proposal_id, account, order_id, attempt_id, outcome, applied_at)
         SELECT ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM orders WHERE order_id = ? AND account = ? AND version = ?)
         ON CONFLICT (account, proposal_id) DO NOTHING`,
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

  const stored = await readApplied(db, command.account, command.proposal_id);
  if (stored) return { kind: stored.attempt_id === attemptId ? "applied" : "already_applied", outcome: stored.outcome };
  const current = await readOrderRecord(db, command.account, command.order_id);
  return current ? { kind: "stale", current_version: current.version } : { kind: "not_found" };
}

/** The stored outcome of this account's applied proposal, or null when it was never applied. */
export async function appliedOutcome(db: D1Database, account: string, proposalId: string): Promise<ApplyOutcome | null> {
  const row = await db
    .prepare("SELECT outcome FROM applied_proposals WHERE proposal_id = ? AND account = ?")
    .bind(proposalId, account)
    .first<{ outcome: string }>();
  return row ? ApplyOutcomeSchema.parse(JSON.parse(row.outcome)) : null;
}
