/**
 * Sealed events of one account for an export, in chain order, a page at a
 * time. Each row carries its seal, so an unfiltered export is the chain
 * itself and can be verified by whoever receives it.
 */
import { type ChainEventContent, chainContentOf, type StoredEventRow } from "../audit/chain-format";
import { AUDIT_EVENT_FIELDS } from "../audit/event-fields";
import type { D1Queries } from "./d1-queries";
import { columnList } from "./sql-columns";

export interface ExportFilter {
  /** Inclusive lower bound on created_at (ISO, UTC). */
  readonly from: string | null;
  /** Exclusive upper bound on created_at (ISO, UTC). */
  readonly to: string | null;
  readonly orderId: string | null;
}

export type ExportedEvent = {
  readonly seq: number;
  readonly prev_hash: string;
  readonly hash: string;
} & ChainEventContent;

const EXPORT_PAGE = 500;

const EXPORT_PAGE_SQL = `SELECT s.seq, s.prev_hash, s.hash, ${columnList(AUDIT_EVENT_FIELDS, "e")}
  FROM audit_seals s JOIN audit_events e ON e.entry = s.entry
  WHERE s.account = ?1 AND s.seq > ?2 AND s.seq <= ?3
    AND (?4 IS NULL OR e.created_at >= ?4) AND (?5 IS NULL OR e.created_at < ?5) AND (?6 IS NULL OR e.order_id = ?6)
  ORDER BY s.seq LIMIT ?7`;

/**
 * Events sealed up to throughSeq (the head when the export began), so the export is one consistent prefix of the chain.
 */
export async function* exportSealedEvents(
  db: D1Queries,
  account: string,
  throughSeq: number,
  filter: ExportFilter,
): AsyncGenerator<ExportedEvent[]> {
  let afterSeq = 0;
  for (;;) {
    const { results } = await db
      .prepare(EXPORT_PAGE_SQL)
      .bind(account, afterSeq, throughSeq, filter.from, filter.to, filter.orderId, EXPORT_PAGE)
      .all<StoredEventRow & { seq: number; prev_hash: string; hash: string }>();
    if (results.length > 0)
      yield results.map((row) => ({ seq: row.seq, prev_hash: row.prev_hash, hash: row.hash, ...chainContentOf(row) }));
    const last = results.at(-1);
    if (!last || results.length < EXPORT_PAGE) return;
    afterSeq = last.seq;
  }
}
