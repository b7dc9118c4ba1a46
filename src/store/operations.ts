/**
 * D1 side of order operations: reads for the tools, the append-only audit
 * trail, and the exactly-once apply. Every function takes the account and
 * filters by it; another account's order behaves as if it did not exist.
 */
import type { NewAuditEvent } from "../orders/audit-event";
import { applyChange, CHANGE_KINDS, type OrderChange } from "../orders/change-kinds";
import type { OrderRecord } from "../orders/order-record";
import { diffStates, orderState } from "../orders/order-state";
import type { ApplyCommand, ApplyResult } from "../orders/port";
import {
  type ApplyOutcome,
  ApplyOutcomeSchema,
  type ExceptionSummary,
  exceptionQueue,
  type OrderDetails,
  orderDetails,
} from "../orders/tool-outputs";
import { insertAuditEvent } from "./audit-events";
import type { D1Queries } from "./d1-queries";
import {
  columnValues,
  EXCEPTION_COLUMNS,
  exceptionFromRow,
  type OrderColumnsRow,
  type OrderRow,
  RECORD_COLUMNS,
  readOrderRecord,
  selectOrders,
} from "./order-rows";
import { batchWithOutbox, NO_OUTBOX, type OutboxWriter } from "./outbox";
import { assignments } from "./sql-columns";

const QUEUED_COLUMNS = ["order_id", "customer_id", "total_cents", "currency", ...EXCEPTION_COLUMNS] as const;
const SELECT_QUEUE_SQL = `${selectOrders(QUEUED_COLUMNS)}WHERE account = ? AND exception_state = 'active'`;

/** The queue reads only the columns it shows: no lines, address or evidence to fetch and parse. */
export async function listActiveExceptions(db: D1Queries, account: string, now: Date): Promise<ExceptionSummary[]> {
  const { results } = await db.prepare(SELECT_QUEUE_SQL).bind(account).all<OrderColumnsRow<typeof QUEUED_COLUMNS>>();
  return exceptionQueue(
    results.map((row) => ({
      order_id: row.order_id,
      customer_id: row.customer_id,
      created_at: row.created_at,
      total_cents: row.total_cents,
      currency: row.currency,
      exception: exceptionFromRow(row),
    })),
    now,
  );
}

export async function readOrderDetails(
  db: D1Queries,
  account: string,
  orderId: string,
  now: Date,
): Promise<OrderDetails | undefined> {
  const order = await readOrderRecord(db, account, orderId);
  if (!order) return undefined;
  const duplicateOf = order.evidence?.duplicate?.of_order_id;
  const other = duplicateOf === undefined ? undefined : await readOrderRecord(db, account, duplicateOf);
  return orderDetails(order, other?.status ?? null, now);
}

async function readApplied(
  db: D1Queries,
  account: string,
  proposalId: string,
): Promise<{ attempt_id: string; outcome: ApplyOutcome } | undefined> {
  const row = await db
    .prepare("SELECT attempt_id, outcome FROM applied_proposals WHERE account = ? AND proposal_id = ?")
    .bind(account, proposalId)
    .first<{ attempt_id: string; outcome: string }>();
  return row ? { attempt_id: row.attempt_id, outcome: ApplyOutcomeSchema.parse(JSON.parse(row.outcome)) } : undefined;
}

const INSERT_APPLICATION_SQL = `INSERT INTO applied_proposals (proposal_id, account, order_id, attempt_id, outcome, applied_at)
  SELECT ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM orders WHERE order_id = ? AND account = ? AND version = ?)
  ON CONFLICT (account, proposal_id) DO NOTHING`;

/** Only this attempt's application row lets the order update and the audit event through. */
const OWNS_APPLICATION_SQL =
  "EXISTS (SELECT 1 FROM applied_proposals WHERE account = ? AND proposal_id = ? AND attempt_id = ?)";

/** The columns a change can write (each kind's apply, orders/kinds/); the version and updated_at move in SQL. */
const CHANGED_COLUMNS = [
  "status",
  "shipping_address",
  "evidence",
  "exception_state",
  "exception_team",
] as const satisfies readonly (keyof OrderRow)[];
const UPDATE_CHANGED_SQL = `UPDATE orders SET ${assignments(CHANGED_COLUMNS)}, version = version + 1, updated_at = ?
  WHERE order_id = ? AND account = ? AND version = ? AND ${OWNS_APPLICATION_SQL}`;

/**
 * The order after the change, refused (a programmer error, thrown) when the
 * change writes a column the UPDATE does not: a kind whose apply touched,
 * say, total_cents would otherwise be shown to the approver and then
 * silently not written.
 */
function changedRecord(order: OrderRecord, change: OrderChange, at: string): OrderRecord {
  const next = applyChange(order, change, at);
  const before = columnValues(order, RECORD_COLUMNS);
  const after = columnValues(next, RECORD_COLUMNS);
  const written: readonly string[] = CHANGED_COLUMNS;
  const unwritten = RECORD_COLUMNS.filter((column, i) => before[i] !== after[i] && !written.includes(column));
  if (unwritten.length > 0)
    throw new Error(
      `a ${change.kind} change writes ${unwritten.join(", ")}, which CHANGED_COLUMNS in store/operations.ts does not list`,
    );
  return next;
}

/**
 * Applies a pinned change exactly once. The application row (keyed by the
 * proposal id), the version-conditional order update and the audit event are
 * one D1 batch, which D1 runs as one transaction: either all three land or
 * none does, and a second attempt finds the first one's row and changes nothing.
 * The outbox rows announcing the change join that batch under the same guard.
 */
export async function applyProposalChange(
  db: D1Queries,
  account: string,
  command: ApplyCommand,
  now: Date,
  outbox: OutboxWriter = NO_OUTBOX,
): Promise<ApplyResult> {
  const prior = await readApplied(db, account, command.proposal_id);
  if (prior) return { kind: "already_applied", outcome: prior.outcome };
  const order = await readOrderRecord(db, account, command.order_id);
  if (!order) return { kind: "not_found" };
  if (order.version !== command.pinned_version) return { kind: "stale", current_version: order.version };

  const at = now.toISOString();
  const next = changedRecord(order, command.change, at);
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
  const ownsApplication = { sql: OWNS_APPLICATION_SQL, params: [account, command.proposal_id, attemptId] };

  const event: NewAuditEvent = {
    event_id: `${command.proposal_id}:applied`,
    account,
    order_id: order.order_id,
    event_type: CHANGE_KINDS[command.change.kind].appliedEvent,
    actor_kind: "operator",
    actor: command.confirmed_by,
    reason: `${command.change.action} approved by ${command.approved_by} (${command.approval_reason}); confirmed by ${command.confirmed_by}`,
    proposal_id: command.proposal_id,
    state_before: before,
    state_after: after,
    created_at: at,
  };

  await batchWithOutbox(
    db,
    outbox,
    [
      db
        .prepare(INSERT_APPLICATION_SQL)
        .bind(
          command.proposal_id,
          account,
          order.order_id,
          attemptId,
          JSON.stringify(outcome),
          at,
          order.order_id,
          account,
          order.version,
        ),
      db
        .prepare(UPDATE_CHANGED_SQL)
        .bind(
          ...columnValues(next, CHANGED_COLUMNS),
          at,
          order.order_id,
          account,
          order.version,
          ...ownsApplication.params,
        ),
      insertAuditEvent(db, event, ownsApplication),
    ],
    event,
    ownsApplication,
  );

  const stored = await readApplied(db, account, command.proposal_id);
  if (stored) return { kind: stored.attempt_id === attemptId ? "applied" : "already_applied", outcome: stored.outcome };
  const current = await readOrderRecord(db, account, command.order_id);
  return current ? { kind: "stale", current_version: current.version } : { kind: "not_found" };
}

/** The stored outcome of this account's applied proposal, or null when it was never applied. */
export async function appliedOutcome(db: D1Queries, account: string, proposalId: string): Promise<ApplyOutcome | null> {
  return (await readApplied(db, account, proposalId))?.outcome ?? null;
}
