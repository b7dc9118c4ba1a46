-- A transactional outbox: one row per webhook event, written in the same D1
-- batch (one transaction) as the change it announces, so an event exists
-- exactly when its change does. event_id is the idempotency key receivers see;
-- it is deterministic per change and destination, so a retried write keeps one
-- row. Delivery goes through a Cloudflare Queue; these columns are its
-- bookkeeping, and drain_after is when the scheduled drain may assume the
-- queue lost the row's message and hand it over again.
CREATE TABLE outbox (
  event_id TEXT PRIMARY KEY,
  account TEXT NOT NULL,
  destination TEXT NOT NULL CHECK (destination IN ('approvals', 'downstream')),
  event_type TEXT NOT NULL,
  -- The exact JSON body every delivery sends and signs.
  payload TEXT NOT NULL CHECK (json_valid(payload)),
  created_at TEXT NOT NULL,
  enqueued_at TEXT,
  delivered_at TEXT,
  dead_lettered_at TEXT,
  attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  last_status INTEGER,
  last_error TEXT,
  drain_after TEXT NOT NULL
);
-- The drain reads only rows still owed, by when they become due.
CREATE INDEX outbox_owed ON outbox (drain_after) WHERE delivered_at IS NULL AND dead_lettered_at IS NULL;

-- Events that will not be delivered: the receiver refused them (a 4xx other
-- than 408 and 429), no webhook is configured for their destination any more,
-- or the queue gave up after its retry limit. Kept for an admin to read, per
-- account, with the receiver's last answer.
CREATE TABLE dead_letters (
  event_id TEXT PRIMARY KEY,
  account TEXT NOT NULL,
  destination TEXT NOT NULL,
  event_type TEXT NOT NULL,
  payload TEXT NOT NULL,
  created_at TEXT NOT NULL,
  attempts INTEGER NOT NULL,
  last_status INTEGER,
  reason TEXT NOT NULL,
  dead_lettered_at TEXT NOT NULL
);
CREATE INDEX dead_letters_account ON dead_letters (account, dead_lettered_at);
