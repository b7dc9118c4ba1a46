-- Audit and application rows are identified within their account. Event ids
-- such as "<order_id>:received" are unique only per account (order ids are),
-- so a global key let one account's INSERT OR IGNORE silently drop another
-- account's event. The tables are rebuilt with (account, id) keys; every row
-- is copied with its rowid, so the trail keeps its order.

CREATE TABLE audit_events_v3 (
  event_id TEXT NOT NULL,
  account TEXT NOT NULL,
  order_id TEXT NOT NULL,
  event_type TEXT NOT NULL,
  actor_kind TEXT NOT NULL CHECK (actor_kind IN ('operator', 'approver', 'system')),
  actor TEXT NOT NULL,
  reason TEXT NOT NULL,
  proposal_id TEXT,
  state_before TEXT,
  state_after TEXT,
  created_at TEXT NOT NULL,
  PRIMARY KEY (account, event_id)
);
INSERT INTO audit_events_v3 (rowid, event_id, account, order_id, event_type, actor_kind, actor, reason, proposal_id, state_before, state_after, created_at)
  SELECT rowid, event_id, account, order_id, event_type, actor_kind, actor, reason, proposal_id, state_before, state_after, created_at
  FROM audit_events ORDER BY rowid;
DROP TABLE audit_events;
ALTER TABLE audit_events_v3 RENAME TO audit_events;
CREATE INDEX audit_events_order ON audit_events (account, order_id, created_at);
CREATE INDEX audit_events_proposal ON audit_events (account, proposal_id);

CREATE TRIGGER audit_events_no_update BEFORE UPDATE ON audit_events
BEGIN
  SELECT RAISE(ABORT, 'audit_events is append-only');
END;

CREATE TRIGGER audit_events_no_delete BEFORE DELETE ON audit_events
BEGIN
  SELECT RAISE(ABORT, 'audit_events is append-only');
END;

CREATE TABLE applied_proposals_v3 (
  proposal_id TEXT NOT NULL,
  account TEXT NOT NULL,
  order_id TEXT NOT NULL,
  attempt_id TEXT NOT NULL,
  outcome TEXT NOT NULL,
  applied_at TEXT NOT NULL,
  PRIMARY KEY (account, proposal_id)
);
INSERT INTO applied_proposals_v3 (rowid, proposal_id, account, order_id, attempt_id, outcome, applied_at)
  SELECT rowid, proposal_id, account, order_id, attempt_id, outcome, applied_at FROM applied_proposals ORDER BY rowid;
DROP TABLE applied_proposals;
ALTER TABLE applied_proposals_v3 RENAME TO applied_proposals;
