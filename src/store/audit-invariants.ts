// Only a type import, with its extension: `npm run audit:verify` loads this file in Node as it is.
import type { AuditDatabase } from "./audit-chain.ts";

/*
 * Invariants of the trail that hold across tables, checked by tests and by
 * `npm run audit:verify`. No runtime imports, for the same reason.
 */

/** Every account with an order, an audit event or a seal. */
export async function auditAccounts(db: AuditDatabase): Promise<string[]> {
  const { results } = await db
    .prepare("SELECT account FROM audit_events UNION SELECT account FROM audit_seals UNION SELECT account FROM orders ORDER BY account")
    .bind()
    .all<{ account: string }>();
  return results.map((r) => r.account);
}

/** The events that say where an order came from; every order has one. */
export const ORIGIN_EVENT_TYPES = ["order_received", "order_seeded", "exception_simulated"] as const;

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
