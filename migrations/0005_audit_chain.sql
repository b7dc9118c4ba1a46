-- A tamper-evident trail. Events stay insert-only; a separate insert-only
-- table of seals puts each account's events into a hash chain, in the order
-- they were inserted. The hash is SHA-256, which D1 cannot compute, so the
-- account's Durable Object computes it and inserts the seals; the triggers
-- below make sure a seal can only ever extend the chain, in order, once.

-- 1. audit_events gets an explicit insertion number. An implicit rowid may be
--    renumbered by VACUUM; `entry` (an alias of the rowid) never is, so the
--    seals can point at it. Every row is copied with its old rowid, so the
--    trail keeps its order, and existing rows start out unsealed.
CREATE TABLE audit_events_v4 (
  entry INTEGER PRIMARY KEY,
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
  UNIQUE (account, event_id)
);
INSERT INTO audit_events_v4 (entry, event_id, account, order_id, event_type, actor_kind, actor, reason, proposal_id, state_before, state_after, created_at)
  SELECT rowid, event_id, account, order_id, event_type, actor_kind, actor, reason, proposal_id, state_before, state_after, created_at
  FROM audit_events ORDER BY rowid;
DROP TABLE audit_events;
ALTER TABLE audit_events_v4 RENAME TO audit_events;
CREATE INDEX audit_events_order ON audit_events (account, order_id, created_at);
CREATE INDEX audit_events_proposal ON audit_events (account, proposal_id);
-- The sealer reads an account's events after its last sealed one, in order.
CREATE INDEX audit_events_account_entry ON audit_events (account, entry);

CREATE TRIGGER audit_events_no_update BEFORE UPDATE ON audit_events
BEGIN
  SELECT RAISE(ABORT, 'audit_events is append-only');
END;

CREATE TRIGGER audit_events_no_delete BEFORE DELETE ON audit_events
BEGIN
  SELECT RAISE(ABORT, 'audit_events is append-only');
END;

-- 2. One seal per event: its place in the account's chain (seq, from 1 with
--    no gaps), the previous seal's hash (64 zeros for seq 1), and
--    SHA-256(prev_hash, the event's canonical content); see src/store/audit-chain.ts.
CREATE TABLE audit_seals (
  account TEXT NOT NULL,
  seq INTEGER NOT NULL CHECK (seq >= 1),
  entry INTEGER NOT NULL UNIQUE,
  prev_hash TEXT NOT NULL CHECK (length(prev_hash) = 64),
  hash TEXT NOT NULL CHECK (length(hash) = 64),
  sealed_at TEXT NOT NULL,
  PRIMARY KEY (account, seq)
) WITHOUT ROWID;

-- A seal must be the next link of its account's chain: the next seq, linked
-- to the current head, for an event of the same account that is the oldest
-- one still unsealed. Anything else (a gap, a fork, a skipped or reordered
-- event, a second seal for one event) is refused.
CREATE TRIGGER audit_seals_extend_in_order BEFORE INSERT ON audit_seals
BEGIN
  SELECT RAISE(ABORT, 'audit event is already sealed')
  WHERE EXISTS (SELECT 1 FROM audit_seals WHERE entry = NEW.entry);
  SELECT RAISE(ABORT, 'audit seals must extend the chain in insertion order')
  WHERE NEW.seq IS NOT (SELECT COALESCE(MAX(seq), 0) + 1 FROM audit_seals WHERE account = NEW.account)
     OR NEW.prev_hash IS NOT COALESCE(
          (SELECT hash FROM audit_seals WHERE account = NEW.account AND seq = NEW.seq - 1),
          '0000000000000000000000000000000000000000000000000000000000000000')
     OR NOT EXISTS (SELECT 1 FROM audit_events WHERE entry = NEW.entry AND account = NEW.account)
     OR NEW.entry <= COALESCE((SELECT entry FROM audit_seals WHERE account = NEW.account AND seq = NEW.seq - 1), 0)
     OR EXISTS (
          SELECT 1 FROM audit_events
          WHERE account = NEW.account AND entry < NEW.entry
            AND entry > COALESCE((SELECT entry FROM audit_seals WHERE account = NEW.account AND seq = NEW.seq - 1), 0));
END;

CREATE TRIGGER audit_seals_no_update BEFORE UPDATE ON audit_seals
BEGIN
  SELECT RAISE(ABORT, 'audit_seals is append-only');
END;

CREATE TRIGGER audit_seals_no_delete BEFORE DELETE ON audit_seals
BEGIN
  SELECT RAISE(ABORT, 'audit_seals is append-only');
END;
