/**
 * What must always hold in the order database, as queries that return the
 * rows breaking it: tests run them through D1, scripts (soak, restart) run
 * them through `wrangler d1 execute`. An empty answer means the invariant holds.
 */
export const INVARIANTS = {
  /** Every order has the event that says where it came from. */
  orders_without_origin_event: `SELECT o.account, o.order_id FROM orders o
    WHERE NOT EXISTS (SELECT 1 FROM audit_events e WHERE e.account = o.account AND e.order_id = o.order_id
      AND e.event_type IN ('order_received', 'order_seeded', 'exception_simulated'))
    ORDER BY o.account, o.order_id LIMIT 20`,
  /** Every applied proposal has exactly one apply event, and every apply event its application row. */
  applications_without_one_apply_event: `SELECT a.account, a.proposal_id,
      (SELECT count(*) FROM audit_events e WHERE e.account = a.account AND e.proposal_id = a.proposal_id
        AND e.event_type IN ('resolution_applied', 'address_change_applied')) AS apply_events
    FROM applied_proposals a WHERE apply_events != 1
    UNION ALL
    SELECT e.account, e.proposal_id, 0 FROM audit_events e
    WHERE e.event_type IN ('resolution_applied', 'address_change_applied')
      AND NOT EXISTS (SELECT 1 FROM applied_proposals a WHERE a.account = e.account AND a.proposal_id = e.proposal_id)
    LIMIT 20`,
  /** An order's version counts its applied changes: version 1 plus one per application. */
  versions_not_matching_applications: `SELECT o.account, o.order_id, o.version,
      (SELECT count(*) FROM applied_proposals a WHERE a.account = o.account AND a.order_id = o.order_id) AS applied
    FROM orders o WHERE o.version != 1 + applied LIMIT 20`,
} as const;

export type InvariantName = keyof typeof INVARIANTS;
