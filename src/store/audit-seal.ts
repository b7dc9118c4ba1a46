/**
 * Seals an account's new audit events into its hash chain, oldest first. Only
 * the account's Durable Object calls this, one pass at a time, so the chain
 * is extended by one writer; the triggers of migration 0005 refuse any seal
 * that does not extend it in order, so even a second writer could not fork it.
 */

import { type ChainHead, extendChain } from "../audit/chain";
import { ChainChecker } from "../audit/chain-check";
import { chainContentOf, type StoredEventRow } from "../audit/chain-format";
import { AUDIT_EVENT_FIELDS } from "../audit/event-fields";
import { fail, ok, type Result } from "../core/errors";
import { readSealedEvents } from "./audit-chain";
import { readyDatabase } from "./databases";
import { columnList } from "./sql-columns";

interface SealOutcome {
  readonly head: ChainHead | null;
  readonly sealed: number;
  /** True when the pass stopped at its limit with events still unsealed. */
  readonly more: boolean;
}

const SEAL_PAGE = 500;
const UNSEALED_PAGE_SQL = `SELECT entry, ${columnList(AUDIT_EVENT_FIELDS)} FROM audit_events WHERE account = ? AND entry > ? ORDER BY entry LIMIT ?`;
const DEFAULT_MAX_PER_PASS = 5_000;

interface HeadRow {
  seq: number;
  hash: string;
  entry: number;
}

/**
 * The head in D1 must still be the one the caller recorded when it last
 * sealed (or a later one linked to it): otherwise the end of the trail was
 * cut off or rewritten, and extending it would bury that.
 */
async function anchorProblem(
  db: D1Database,
  account: string,
  anchor: ChainHead,
  top: HeadRow | null,
): Promise<string | undefined> {
  const checker = new ChainChecker(anchor);
  const atAnchor =
    top?.seq === anchor.seq
      ? top.hash
      : ((
          await db
            .prepare("SELECT hash FROM audit_seals WHERE account = ? AND seq = ?")
            .bind(account, anchor.seq)
            .first<{ hash: string }>()
        )?.hash ?? null);
  checker.expectHead(anchor, atAnchor);
  // Seals past the anchor were written without it being updated (an interrupted pass): they must link up.
  if (top && top.seq > anchor.seq && checker.problems.length === 0) {
    for await (const link of readSealedEvents(db, account, anchor.seq, top.seq)) await checker.push(link);
  }
  return checker.problems.map((p) => p.message).join("; ") || undefined;
}

export async function sealAuditTrail(
  database: D1Database,
  account: string,
  options: { anchor: ChainHead | null; now: Date; maxPerPass?: number },
): Promise<Result<SealOutcome>> {
  // Through the order database's door: on a fresh database the seed's events
  // are the start of every trail, and an export must not seal around them.
  const db = await readyDatabase(database);
  const top = await db
    .prepare("SELECT seq, hash, entry FROM audit_seals WHERE account = ? ORDER BY seq DESC LIMIT 1")
    .bind(account)
    .first<HeadRow>();
  if (options.anchor) {
    const problem = await anchorProblem(db, account, options.anchor, top);
    if (problem)
      return fail("conflict", `the audit trail of ${account} fails verification, so it is not extended: ${problem}`);
  }

  let head: ChainHead | null = top ? { seq: top.seq, hash: top.hash } : null;
  let lastEntry = top?.entry ?? 0;
  let sealed = 0;
  const max = options.maxPerPass ?? DEFAULT_MAX_PER_PASS;
  while (sealed < max) {
    const wanted = Math.min(SEAL_PAGE, max - sealed);
    const { results } = await db
      .prepare(UNSEALED_PAGE_SQL)
      .bind(account, lastEntry, wanted)
      .all<StoredEventRow & { entry: number }>();
    if (results.length === 0) return ok({ head, sealed, more: false });

    const extended = await extendChain(
      head,
      results.map((row) => ({ entry: row.entry, content: chainContentOf(row) })),
    );
    head = extended.head;
    const links = extended.links;
    // One statement per page, however many events it seals: the rows of
    // json_each are inserted in array order, so each seal's trigger sees the one before.
    await db
      .prepare(
        `INSERT INTO audit_seals (account, seq, entry, prev_hash, hash, sealed_at)
         SELECT ?1, json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]'), json_extract(value, '$[3]'), ?2
         FROM json_each(?3) ORDER BY key`,
      )
      .bind(account, options.now.toISOString(), JSON.stringify(links))
      .run();
    sealed += results.length;
    lastEntry = results.at(-1)?.entry ?? lastEntry;
    if (results.length < wanted) return ok({ head, sealed, more: false });
  }
  const rest = await db
    .prepare("SELECT 1 AS present FROM audit_events WHERE account = ? AND entry > ? LIMIT 1")
    .bind(account, lastEntry)
    .first();
  return ok({ head, sealed, more: rest !== null });
}
