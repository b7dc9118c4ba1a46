-- Orders of every account: intake orders posted to /api/orders and the
-- operations dataset loaded from seed/operations.json share one table, so
-- every tool sees one order model.
CREATE TABLE orders (
  order_id TEXT NOT NULL,
  account TEXT NOT NULL,
  source TEXT NOT NULL CHECK (source IN ('intake', 'operations')),
  request_id TEXT,
  request_hash TEXT,
  customer_id TEXT NOT NULL,
  channel TEXT NOT NULL,
  currency TEXT NOT NULL,
  total_cents INTEGER NOT NULL,
  status TEXT NOT NULL,
  version INTEGER NOT NULL DEFAULT 1 CHECK (version >= 1),
  lines TEXT NOT NULL,
  shipping_address TEXT,
  evidence TEXT,
  exception_type TEXT,
  exception_state TEXT CHECK (exception_state IN ('active', 'resolved', 'escalated')),
  exception_priority TEXT,
  exception_team TEXT,
  exception_opened_at TEXT,
  exception_sla_minutes INTEGER,
  exception_summary TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  -- Order ids are unique per account, so one account's ids can neither block
  -- nor reveal another's.
  PRIMARY KEY (account, order_id)
);

-- request_id is an idempotency key per account.
CREATE UNIQUE INDEX orders_account_request ON orders (account, request_id) WHERE request_id IS NOT NULL;
CREATE INDEX orders_account_exception ON orders (account, exception_state);

-- One row per loaded seed version: loading again is a no-op.
CREATE TABLE seed_runs (
  seed_version TEXT PRIMARY KEY,
  anchored_at TEXT NOT NULL
);

-- Public order numbers (ORD-1001, ...) for new operations orders, one counter
-- per account ('public_order:<account>'), one atomic UPDATE ... RETURNING each.
CREATE TABLE order_number_sequence (
  name TEXT PRIMARY KEY,
  next_value INTEGER NOT NULL
);
