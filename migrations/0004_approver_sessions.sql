-- Approver sessions for the approval page. The cookie carries only a signed
-- random id; this row is what makes it valid, so signing out (deleting the
-- row) ends the session everywhere, including in a copied cookie. The id is
-- stored as its SHA-256 digest, so reading this table opens no session.
CREATE TABLE approver_sessions (
  session_hash TEXT PRIMARY KEY,
  account TEXT NOT NULL,
  approver TEXT NOT NULL,
  csrf_token TEXT NOT NULL,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL
);
CREATE INDEX approver_sessions_expiry ON approver_sessions (expires_at);
