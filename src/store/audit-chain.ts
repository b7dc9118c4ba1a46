/**
 * The audit trail's hash chain: the checks that prove it intact, and reading
 * it back from D1 for them. Each account's sealed events form one chain, which
 * starts after GENESIS_HASH (64 zeros); how each link is hashed is in
 * audit-chain-format.ts. Anyone holding an unfiltered NDJSON export can
 * recompute it with any SHA-256 tool.
 *
 * `npm run audit:verify` loads this file in Node as it is, so the script and
 * the Worker check with the same code. It imports only audit-chain-format.ts,
 * by its name with the .ts extension, and that file imports only the
 * import-free core/encoding.ts: keep them that way (only `import type`
 * otherwise, as store/invariants.ts does).
 */
import { chainContentOf, chainHash, type ChainEventContent, type StoredEventRow } from "./audit-chain-format.ts";

export const GENESIS_HASH = "0".repeat(64);

export interface ChainHead {
  readonly seq: number;
  readonly hash: string;
}

/** `26:eaaa…`, as X-Audit-Chain-Head carries it; an empty chain is `0:` and the genesis hash. */
export function formatChainHead(head: ChainHead | null): string {
  return head ? `${head.seq}:${head.hash}` : `0:${GENESIS_HASH}`;
}

// ------------------------------------------------------------- verification

type ChainProblemKind = "edited" | "removed" | "missing" | "broken_link" | "duplicate" | "unsealed_inside" | "head_mismatch";

interface ChainProblem {
  readonly kind: ChainProblemKind;
  readonly seq: number | null;
  readonly message: string;
}

/** One link as it is read back: its seal, and the event it seals (null when the event row is gone). */
interface SealedEvent {
  readonly seq: number;
  readonly prev_hash: string;
  readonly hash: string;
  readonly event: ChainEventContent | null;
}

const MAX_PROBLEMS = 100;

/**
 * Walks one account's chain in seq order and names every way it fails to
 * link up. Fed page by page, so a long trail never has to fit in memory.
 */
export class ChainChecker {
  readonly problems: ChainProblem[] = [];
  private previous: ChainHead | null;
  private count = 0;

  /** `from`: the link the walk starts after (null: the chain's start). */
  constructor(from: ChainHead | null = null) {
    this.previous = from;
  }

  get head(): ChainHead | null {
    return this.previous;
  }

  get checked(): number {
    return this.count;
  }

  report(kind: ChainProblemKind, seq: number | null, message: string): void {
    if (this.problems.length < MAX_PROBLEMS) this.problems.push({ kind, seq, message });
  }

  async push(link: SealedEvent): Promise<void> {
    this.count++;
    const previous = this.previous;
    const expectedSeq = (previous?.seq ?? 0) + 1;
    const expectedPrev = previous?.hash ?? GENESIS_HASH;
    if (previous && link.seq === previous.seq) {
      this.report("duplicate", link.seq, `seq ${link.seq} appears twice: an event was inserted into the sealed trail`);
    } else if (link.seq > expectedSeq) {
      const range = link.seq - 1 === expectedSeq ? `seq ${expectedSeq} is` : `seq ${expectedSeq}-${link.seq - 1} are`;
      this.report("missing", expectedSeq, `${range} missing: sealed events were removed`);
    } else if (link.prev_hash !== expectedPrev) {
      this.report("broken_link", link.seq, `seq ${link.seq} does not link to seq ${link.seq - 1}: an event before it was replaced, or one was inserted`);
    }
    if (!link.event) {
      this.report("removed", link.seq, `the event sealed as seq ${link.seq} is gone: it was removed`);
    } else if ((await chainHash(link.prev_hash, link.seq, link.event)) !== link.hash) {
      this.report("edited", link.seq, `seq ${link.seq} (${link.event.event_id}) no longer matches its hash: it was edited`);
    }
    this.previous = { seq: link.seq, hash: link.hash };
  }

  /** The head an outside record (the account object, an earlier export) says the chain reached. */
  expectHead(anchor: ChainHead, hashAtAnchorSeq: string | null): void {
    // Seq 0 is the empty chain (an export taken before anything was sealed): every chain starts there.
    if (anchor.seq === 0) hashAtAnchorSeq = GENESIS_HASH;
    if (hashAtAnchorSeq === null) {
      this.report("head_mismatch", anchor.seq, `the chain no longer reaches seq ${anchor.seq}, which was sealed: its end was cut off`);
    } else if (hashAtAnchorSeq !== anchor.hash) {
      this.report("head_mismatch", anchor.seq, `seq ${anchor.seq} no longer has the hash recorded when it was sealed: the trail was rewritten`);
    }
  }
}

/**
 * Checks an unfiltered NDJSON export of GET /api/audit: one event per line,
 * with its seal. This is how whoever receives an export verifies it. With an
 * anchor (the X-Audit-Chain-Head of this or an earlier export), the file must
 * still hold that link: a newer export goes past an older head, so the hash is
 * taken where the walk passes the anchor's seq, not from the file's last line.
 */
export async function checkExportedChain(ndjson: string, options: { anchors?: readonly ChainHead[] } = {}): Promise<ChainChecker> {
  const checker = new ChainChecker();
  const anchors = options.anchors ?? [];
  const seen = new Map<number, string>();
  for (const line of ndjson.split("\n")) {
    if (line.trim() === "") continue;
    const { seq, prev_hash, hash, ...event } = JSON.parse(line) as SealedEvent & ChainEventContent;
    await checker.push({ seq, prev_hash, hash, event });
    if (!seen.has(seq) && anchors.some((anchor) => anchor.seq === seq)) seen.set(seq, hash);
  }
  for (const anchor of anchors) checker.expectHead(anchor, seen.get(anchor.seq) ?? null);
  return checker;
}

// ------------------------------------------------------- reading it from D1

/** What the checks need of a database: D1, or wrangler's local proxy of it in a script. */
export interface AuditDatabase {
  prepare(query: string): { bind(...values: unknown[]): { all<T = Record<string, unknown>>(): Promise<{ results: T[] }> } };
}

/** A seal joined with its event; the event's columns are null when the event row is gone. */
type SealedRow = { seq: number; entry: number; prev_hash: string; hash: string } & (StoredEventRow | { [K in keyof StoredEventRow]: null });

function sealedEventOf(row: SealedRow): SealedEvent {
  const { seq, prev_hash, hash } = row;
  return { seq, prev_hash, hash, event: row.event_id === null ? null : chainContentOf(row) };
}

const PAGE = 500;

const SEALED_PAGE_SQL = `SELECT s.seq, s.entry, s.prev_hash, s.hash, e.event_id, e.account, e.order_id, e.event_type, e.actor_kind,
    e.actor, e.reason, e.proposal_id, e.state_before, e.state_after, e.created_at
  FROM audit_seals s LEFT JOIN audit_events e ON e.entry = s.entry
  WHERE s.account = ? AND s.seq > ? AND s.seq <= ? ORDER BY s.seq LIMIT ?`;

/** Sealed links of one account with afterSeq < seq <= throughSeq, in order, a page at a time. */
export async function* readSealedEvents(db: AuditDatabase, account: string, afterSeq: number, throughSeq: number): AsyncGenerator<SealedEvent> {
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
  return (await db.prepare(sql).bind(...params).all<T>()).results[0];
}

/**
 * Proves one account's chain intact: every seal links to the one before,
 * every sealed event still matches its hash, no seq is missing, and no event
 * sits among sealed ones without a seal. With anchors (heads recorded
 * outside D1: the account object's, an export's X-Audit-Chain-Head), a
 * rewritten or cut-off end is caught as well; each one must still hold.
 */
export async function verifyAuditChain(db: AuditDatabase, account: string, options: { anchors?: readonly ChainHead[] } = {}): Promise<ChainReport> {
  const top = await one<{ seq: number; entry: number }>(db, "SELECT MAX(seq) AS seq, MAX(entry) AS entry FROM audit_seals WHERE account = ?", account);
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
    checker.report("unsealed_inside", null, `event ${stray.event_id} sits among sealed events without a seal: it was inserted behind the sealer`);
  }
  for (const anchor of options.anchors ?? []) {
    const atAnchor = await one<{ hash: string }>(db, "SELECT hash FROM audit_seals WHERE account = ? AND seq = ?", account, anchor.seq);
    checker.expectHead(anchor, atAnchor?.hash ?? null);
  }
  const unsealed = await one<{ n: number }>(db, "SELECT count(*) AS n FROM audit_events WHERE account = ? AND entry > ?", account, lastEntry);
  return {
    account,
    ok: checker.problems.length === 0,
    sealed: checker.checked,
    unsealed: unsealed?.n ?? 0,
    head: checker.head,
    problems: checker.problems,
  };
}
