// The floor's part of the project's audit chain, for the bench's chained way
// of sending: a seal table whose trigger lets a seal only extend the chain, and
// a pass that reads new events back from D1 in pages, hashes each onto the
// chain and writes one seal per event, in one statement per page.

/** The hash the first seal of a chain extends. */
const GENESIS_HASH = "0".repeat(64);

/** The seal table and its rule, created after floor_events, which a seal points into. */
export const SEAL_SCHEMA = [
  `CREATE TABLE IF NOT EXISTS floor_seals (
     account TEXT NOT NULL, seq INTEGER NOT NULL, entry INTEGER NOT NULL UNIQUE, prev_hash TEXT NOT NULL,
     hash TEXT NOT NULL, sealed_at TEXT NOT NULL, PRIMARY KEY (account, seq)) WITHOUT ROWID`,
  `CREATE TRIGGER IF NOT EXISTS floor_seals_in_order BEFORE INSERT ON floor_seals
   BEGIN
     SELECT RAISE(ABORT, 'a seal must extend the chain')
     WHERE NEW.seq IS NOT (SELECT COALESCE(MAX(seq), 0) + 1 FROM floor_seals WHERE account = NEW.account)
        OR NEW.prev_hash IS NOT COALESCE((SELECT hash FROM floor_seals WHERE account = NEW.account AND seq = NEW.seq - 1), '${GENESIS_HASH}')
        OR NOT EXISTS (SELECT 1 FROM floor_events WHERE entry = NEW.entry AND account = NEW.account)
        OR NEW.entry <= COALESCE((SELECT entry FROM floor_seals WHERE account = NEW.account AND seq = NEW.seq - 1), 0);
   END`,
];

const SEAL_PAGE = 500;
/** Like the project's sealer: a pass at most this often while orders arrive. */
export const SEAL_EVERY_MS = 200;
const UTF8 = new TextEncoder();

async function sha256Hex(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", UTF8.encode(text)));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/**
 * Seals the events after `from` not yet sealed, a page at a time: read back,
 * hash onto the chain, one insert per page. The other ways leave their events
 * unsealed; `from` keeps a chained batch from paying for them.
 */
export async function sealPass(db: D1Database, account: string, from: number): Promise<void> {
  const top = await db
    .prepare("SELECT seq, hash, entry FROM floor_seals WHERE account = ? ORDER BY seq DESC LIMIT 1")
    .bind(account)
    .first<{ seq: number; hash: string; entry: number }>();
  let seq = top?.seq ?? 0;
  let hash = top?.hash ?? GENESIS_HASH;
  let after = Math.max(top?.entry ?? 0, from);
  for (;;) {
    const { results } = await db
      .prepare(
        "SELECT entry, event_id, order_id, event_type, state_after, created_at FROM floor_events WHERE account = ? AND entry > ? ORDER BY entry LIMIT ?",
      )
      .bind(account, after, SEAL_PAGE)
      .all<{ entry: number }>();
    const links: [number, number, string, string][] = [];
    for (const row of results) {
      const prev = hash;
      hash = await sha256Hex(`${prev}\n${JSON.stringify(row)}`);
      links.push([++seq, row.entry, prev, hash]);
    }
    if (links.length > 0) {
      await db
        .prepare(
          `INSERT INTO floor_seals (account, seq, entry, prev_hash, hash, sealed_at)
           SELECT ?1, json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]'), json_extract(value, '$[3]'), ?2
           FROM json_each(?3) ORDER BY key`,
        )
        .bind(account, new Date().toISOString(), JSON.stringify(links))
        .run();
    }
    after = results.at(-1)?.entry ?? after;
    if (results.length < SEAL_PAGE) return;
  }
}
