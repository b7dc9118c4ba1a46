/**
 * Approver sessions in D1. Rows are keyed by the digest of the session id,
 * never the id itself, and a row past its expiry counts as absent.
 */
import type { ApproverSessionRow, ApproverSessionStore } from "../auth/approver-session";

export function d1ApproverSessions(db: D1Database): ApproverSessionStore {
  return {
    async insert(row: ApproverSessionRow): Promise<void> {
      // Sweeping expired rows on each sign-in keeps the table small without a cron.
      await db.batch([
        db.prepare("DELETE FROM approver_sessions WHERE expires_at <= ?").bind(row.created_at),
        db
          .prepare(
            "INSERT INTO approver_sessions (session_hash, account, approver, csrf_token, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)",
          )
          .bind(row.session_hash, row.account, row.approver, row.csrf_token, row.created_at, row.expires_at),
      ]);
    },
    find(sessionHash: string, now: string): Promise<ApproverSessionRow | null> {
      return db
        .prepare(
          "SELECT session_hash, account, approver, csrf_token, created_at, expires_at FROM approver_sessions WHERE session_hash = ? AND expires_at > ?",
        )
        .bind(sessionHash, now)
        .first<ApproverSessionRow>();
    },
    async delete(sessionHash: string): Promise<void> {
      await db.prepare("DELETE FROM approver_sessions WHERE session_hash = ?").bind(sessionHash).run();
    },
  };
}
