/**
 * What must always hold in the order database. Each check answers the rows
 * that break it, so an empty answer means it holds. Tests run them through
 * the D1 binding; scripts through the local database wrangler dev leaves.
 *
 * Only type imports, with their extensions: scripts (audit:verify, soak, the
 * restart test) load this file in Node as it is, next to the Worker.
 */
import type { AuditDatabase } from "./audit-chain.ts";

/** The events that say where an order came from; every order has one. */
const ORIGIN_EVENT_TYPES = ["order_received", "order_seeded", "exception_simulated"] as const;

/** How many offending rows a check reports at most. */
const SAMPLE = 20;

/** Every account with an order, an audit event or a seal. */
export async function auditAccounts(db: AuditDatabase): Promise<string[]> {
  const { results } = await db
    .prepare(
      "SELECT account FROM audit_events UNION SELECT account FROM audit_seals UNION SELECT account FROM orders ORDER BY account",
    )
    .bind()
    .all<{ account: string }>();
  return results.map((r) => r.account);
}

/** Orders with no origin event (the invariant says there are none), oldest first. */
export async function findOrdersWithoutOriginEvent(
  db: AuditDatabase,
  options: { account?: string; limit?: number } = {},
): Promise<{ account: string; order_id: string }[]> {
  const types = ORIGIN_EVENT_TYPES.map((_, i) => `?${i + 3}`).join(", ");
  const { results } = await db
    .prepare(
      `SELECT o.account, o.order_id FROM orders o
       WHERE (?1 IS NULL OR o.account = ?1)
         AND NOT EXISTS (SELECT 1 FROM audit_events e WHERE e.account = o.account AND e.order_id = o.order_id AND e.event_type IN (${types}))
       ORDER BY o.created_at, o.order_id LIMIT ?2`,
    )
    .bind(options.account ?? null, options.limit ?? 100, ...ORIGIN_EVENT_TYPES)
    .all<{ account: string; order_id: string }>();
  return results;
}

/**
 * An apply event, whatever its kind's event type: store/operations.ts gives
 * the one apply of a proposal the id `<proposal_id>:applied`, and no other
 * step of a proposal ends in `:applied`. So this file needs no list of the
 * change kinds, which live in modules Node cannot load as they are.
 */
const IS_APPLY_EVENT = "e.proposal_id IS NOT NULL AND e.event_id = e.proposal_id || ':applied'";

/** Every applied proposal has exactly one apply event, and every apply event its application row. */
const APPLICATIONS_WITHOUT_ONE_APPLY_EVENT = `SELECT a.account, a.proposal_id,
    (SELECT count(*) FROM audit_events e WHERE e.account = a.account AND e.proposal_id = a.proposal_id
      AND ${IS_APPLY_EVENT}) AS apply_events
  FROM applied_proposals a WHERE apply_events != 1
  UNION ALL
  SELECT e.account, e.proposal_id, 0 FROM audit_events e
  WHERE ${IS_APPLY_EVENT}
    AND NOT EXISTS (SELECT 1 FROM applied_proposals a WHERE a.account = e.account AND a.proposal_id = e.proposal_id)
  LIMIT ${SAMPLE}`;

/** An order's version counts its applied changes: version 1 plus one per application. */
const VERSIONS_NOT_MATCHING_APPLICATIONS = `SELECT o.account, o.order_id, o.version,
    (SELECT count(*) FROM applied_proposals a WHERE a.account = o.account AND a.order_id = o.order_id) AS applied
  FROM orders o WHERE o.version != 1 + applied LIMIT ${SAMPLE}`;

interface InvariantReport {
  readonly orders_without_origin_event: Record<string, unknown>[];
  readonly applications_without_one_apply_event: Record<string, unknown>[];
  readonly versions_not_matching_applications: Record<string, unknown>[];
}

/** Runs every invariant; each entry lists the offending rows (none when it holds). */
export async function checkInvariants(db: AuditDatabase): Promise<InvariantReport> {
  return {
    orders_without_origin_event: await findOrdersWithoutOriginEvent(db, { limit: SAMPLE }),
    applications_without_one_apply_event: (await db.prepare(APPLICATIONS_WITHOUT_ONE_APPLY_EVENT).bind().all()).results,
    versions_not_matching_applications: (await db.prepare(VERSIONS_NOT_MATCHING_APPLICATIONS).bind().all()).results,
  };
}

/** The same report as one readable line per broken invariant; empty when all hold. */
export function describeViolations(report: InvariantReport): string[] {
  return Object.entries(report)
    .filter(([, rows]) => rows.length > 0)
    .map(
      ([name, rows]) =>
        `${name}: ${rows.length}${rows.length === SAMPLE ? "+" : ""} row(s), e.g. ${JSON.stringify(rows[0])}`,
    );
}
