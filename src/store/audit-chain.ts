/**
 * Reading an account's hash chain back from D1 for the checks in
 * audit/chain-check.ts. `npm run audit:verify` loads this file in Node as it
 * is, so the script and the Worker check with the same code: it imports only
 * the audit folder's import-light files and the import-free sql-columns.ts,
 * by their names with the .ts extension (only `import type` otherwise, as
 * store/invariants.ts does).
 */
import type { ChainHead } from "../audit/chain.ts";
import { ChainChecker, type ChainProblem, type SealedEvent } from "../audit/chain-check.ts";
import { chainContentOf, type StoredEventRow } from "../audit/chain-format.ts";
import { AUDIT_EVENT_FIELDS } from "../audit/event-fields.ts";
import { columnList } from "./sql-columns.ts";

/** What the checks need of a database: D1, or wrangler's local proxy of it in a script. */
export interface AuditDatabase {
  prepare(query: string): {
    bind(...values: unknown[]): { all<T = Record<string, unknown>>(): Promise<{ results: T[] }> };
  };
}

/** A seal joined with its event; the event's columns are null when the event row is gone. */
type SealedRow = { seq: number; entry: number; prev_hash: string; hash: string } & (
  | StoredEventRow
  | { [K in keyof StoredEventRow]: null }
);

function sealedEventOf(row: SealedRow): SealedEvent {
  const { seq, prev_hash, hash } = row;
  return { seq, prev_hash, hash, event: row.event_id === null ? null : chainContentOf(row) };
}

const PAGE = 500;

const SEALED_PAGE_SQL = `SELECT s.seq, s.entry, s.prev_hash, s.hash, ${columnList(AUDIT_EVENT_FIELDS, "e")}
  FROM audit_seals s LEFT JOIN audit_events e ON e.entry = s.entry
  WHERE s.account = ? AND s.seq > ? AND s.seq <= ? ORDER BY s.seq LIMIT ?`;

/** Sealed links of one account with afterSeq < seq <= throughSeq, in order, a page at a time. */
export async function* readSealedEvents(
  db: AuditDatabase,
  account: string,
  afterSeq: number,
  throughSeq: number,
): AsyncGenerator<SealedEvent> {
  let after = afterSeq;
  for (;;) {
    const { results } = await db.prepare(SEALED_PAGE_SQL).bind(account, after, throughSeq, PAGE).all<SealedRow>();
    for (const row of results) yield sealedEventOf(row);
    const last = results.at(-1);
    if (!last || results.length < PAGE) return;
    after = last.seq;
  }
}

export interface ChainReport {
  readonly account: string;
  readonly ok: boolean;
  /** Sealed events checked. */
  readonly sealed: number;
  /** Events inserted after the last seal: not covered by the chain yet. */
  readonly unsealed: number;
  readonly head: ChainHead | null;
  readonly problems: readonly ChainProblem[];
}

async function one<T>(db: AuditDatabase, sql: string, ...params: unknown[]): Promise<T | undefined> {
  return (
    await db
      .prepare(sql)
      .bind(...params)
      .all<T>()
  ).results[0];
}

/**
 * Proves one account's chain intact: every seal links to the one before,
 * every sealed event still matches its hash, no seq is missing, and no event
 * sits among sealed ones without a seal. With anchors (heads recorded
 * outside D1: the account object's, an export's X-Audit-Chain-Head), a
 * rewritten or cut-off end is caught as well; each one must still hold.
 */
export async function verifyAuditChain(
  db: AuditDatabase,
  account: string,
  options: { anchors?: readonly ChainHead[] } = {},
): Promise<ChainReport> {
  const top = await one<{ seq: number; entry: number }>(
    db,
    "SELECT MAX(seq) AS seq, MAX(entry) AS entry FROM audit_seals WHERE account = ?",
    account,
  );
  const lastSeq = top?.seq ?? 0;
  const lastEntry = top?.entry ?? 0;
  const checker = new ChainChecker();
  for await (const link of readSealedEvents(db, account, 0, lastSeq)) await checker.push(link);

  const strays = await db
    .prepare(
      `SELECT e.entry, e.event_id FROM audit_events e
       WHERE e.account = ? AND e.entry <= ? AND NOT EXISTS (SELECT 1 FROM audit_seals s WHERE s.entry = e.entry)
       ORDER BY e.entry LIMIT 20`,
    )
    .bind(account, lastEntry)
    .all<{ entry: number; event_id: string }>();
  for (const stray of strays.results) {
    checker.report(
      "unsealed_inside",
      null,
      `event ${stray.event_id} sits among sealed events without a seal: it was inserted behind the sealer`,
    );
  }
  for (const anchor of options.anchors ?? []) {
    const atAnchor = await one<{ hash: string }>(
      db,
      "SELECT hash FROM audit_seals WHERE account = ? AND seq = ?",
      account,
      anchor.seq,
    );
    checker.expectHead(anchor, atAnchor?.hash ?? null);
  }
  const unsealed = await one<{ n: number }>(
    db,
    "SELECT count(*) AS n FROM audit_events WHERE account = ? AND entry > ?",
    account,
    lastEntry,
  );
  return {
    account,
    ok: checker.problems.length === 0,
    sealed: checker.checked,
    unsealed: unsealed?.n ?? 0,
    head: checker.head,
    problems: checker.problems,
  };
}
