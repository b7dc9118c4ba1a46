-- Append-only audit trail: who did what to which order, when, why, and the
-- order state before and after. event_id is deterministic per state change,
-- so a retried write cannot record the same change twice.
CREATE TABLE audit_events (
  event_id TEXT PRIMARY KEY,
  account TEXT NOT NULL,
  order_id TEXT NOT NULL,
  event_type TEXT NOT NULL,
  actor_kind TEXT NOT NULL CHECK (actor_kind IN ('operator', 'approver', 'system')),
  actor TEXT NOT NULL,
  reason TEXT NOT NULL,
  proposal_id TEXT,
  state_before TEXT,
  state_after TEXT,
  created_at TEXT NOT NULL
);
CREATE INDEX audit_events_order ON audit_events (account, order_id, created_at);

CREATE TRIGGER audit_events_no_update BEFORE UPDATE ON audit_events
BEGIN
  SELECT RAISE(ABORT, 'audit_events is append-only');
END;

CREATE TRIGGER audit_events_no_delete BEFORE DELETE ON audit_events
BEGIN
  SELECT RAISE(ABORT, 'audit_events is append-only');
END;

-- One row per applied proposal. Its primary key is what makes an apply happen
-- at most once; the stored outcome is what every later confirmation returns.
CREATE TABLE applied_proposals (
  proposal_id TEXT PRIMARY KEY,
  account TEXT NOT NULL,
  order_id TEXT NOT NULL,
  attempt_id TEXT NOT NULL,
  outcome TEXT NOT NULL,
  applied_at TEXT NOT NULL
);
