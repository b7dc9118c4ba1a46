/**
 * Row counts read straight from D1, for before/after checks. Every count in
 * the tests is asked through countRowsIn, so there is one way to ask it.
 */
import { env } from "cloudflare:workers";

/** The `n` of a `SELECT count(*) AS n ...` query on `db`. */
export async function countRowsIn(db: D1Database, sql: string, ...params: unknown[]): Promise<number> {
  const row = await db
    .prepare(sql)
    .bind(...params)
    .first<{ n: number }>();
  if (!row) throw new Error(`count query returned no row: ${sql}`);
  return row.n;
}

/** The `n` of a `SELECT count(*) AS n ...` query on the test database. */
export function countRows(sql: string, ...params: unknown[]): Promise<number> {
  return countRowsIn(env.DB, sql, ...params);
}

// ---------------------------------------------------------------------- orders

/** Every order row in D1 (of every account and source), or one account's. */
export function countOrders(account?: string): Promise<number> {
  return account === undefined
    ? countRows("SELECT count(*) AS n FROM orders")
    : countRows("SELECT count(*) AS n FROM orders WHERE account = ?", account);
}

export function countOrdersFor(account: string, requestId: string): Promise<number> {
  return countRows("SELECT count(*) AS n FROM orders WHERE account = ? AND request_id = ?", account, requestId);
}

/** Orders of one account whose order_id is exactly this one (0 or 1: ids are unique per account). */
export function countOrdersWithId(account: string, orderId: string): Promise<number> {
  return countRows("SELECT count(*) AS n FROM orders WHERE account = ? AND order_id = ?", account, orderId);
}

export function countOrdersWithPrefix(prefix: string): Promise<number> {
  return countRows("SELECT count(*) AS n FROM orders WHERE request_id LIKE ? || '%'", prefix);
}

// ------------------------------------------------------------ the audit trail

export function countAuditEvents(account: string, orderId: string, eventType?: string): Promise<number> {
  return eventType === undefined
    ? countRows("SELECT count(*) AS n FROM audit_events WHERE account = ? AND order_id = ?", account, orderId)
    : countRows(
        "SELECT count(*) AS n FROM audit_events WHERE account = ? AND order_id = ? AND event_type = ?",
        account,
        orderId,
        eventType,
      );
}

export function countProposalEvents(proposalId: string, eventType: string): Promise<number> {
  return countRows(
    "SELECT count(*) AS n FROM audit_events WHERE proposal_id = ? AND event_type = ?",
    proposalId,
    eventType,
  );
}

export function countApplied(proposalId: string): Promise<number> {
  return countRows("SELECT count(*) AS n FROM applied_proposals WHERE proposal_id = ?", proposalId);
}

// ---------------------------------------------------------- approver sessions

/** Session rows stored under this hash (0 or 1). */
export function countSessionRows(sessionHash: string): Promise<number> {
  return countRows("SELECT count(*) AS n FROM approver_sessions WHERE session_hash = ?", sessionHash);
}
