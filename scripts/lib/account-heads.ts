// The chain heads the account Durable Objects recorded (AuditSealer keeps
// one row in its own SQLite, table audit_anchor) in the state of a stopped or
// running `wrangler dev`, for audit:verify. They live outside D1, which is the
// point: a D1 trail cut off at its end, seals and all, still links up, and only
// a head kept elsewhere shows that something is missing.
//
// Miniflare keeps each object's SQLite in <state>/v3/do/<worker>-<class>/<id>.sqlite
// and writes the name it was addressed by (for AccountAgent: the account) into
// that file's __miniflare_do_name table. That is wrangler's local layout, not
// an API, so whatever does not look like it is reported, never guessed at.
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { unstable_readConfig } from "wrangler";
import type { ChainHead } from "../../src/audit/chain.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

export interface RecordedHeads {
  /** Account → the head its object last recorded. */
  readonly heads: ReadonlyMap<string, ChainHead>;
  /** Why some or all heads could not be read, for the report. */
  readonly notes: readonly string[];
}

/** `statePath`: the v3 directory (what openLocalDatabase calls `where`). */
export async function readRecordedHeads(statePath: string): Promise<RecordedHeads> {
  const config = unstable_readConfig({ config: path.join(root, "wrangler.toml") });
  const binding = config.durable_objects.bindings.find((b: { name: string }) => b.name === "ACCOUNT_AGENT");
  if (!binding) return { heads: new Map(), notes: ["wrangler.toml has no ACCOUNT_AGENT binding"] };
  const dir = path.join(statePath, "do", `${config.name}-${binding.class_name}`);
  if (!existsSync(dir)) return { heads: new Map(), notes: [`no account objects in ${dir} yet`] };
  let sqlite: typeof import("node:sqlite");
  try {
    sqlite = await import("node:sqlite");
  } catch {
    return {
      heads: new Map(),
      notes: [
        "this Node.js has no node:sqlite (22.13 or newer does), so the heads the account objects recorded were not read",
      ],
    };
  }
  const heads = new Map<string, ChainHead>();
  const notes: string[] = [];
  for (const file of readdirSync(dir).filter((name) => /^[0-9a-f]{64}\.sqlite$/.test(name))) {
    const db = new sqlite.DatabaseSync(path.join(dir, file), { readOnly: true });
    try {
      const tables = new Set(
        db
          .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
          .all()
          .map((row) => String(row.name)),
      );
      if (!tables.has("__miniflare_do_name")) {
        notes.push(
          `${file} does not say which account it belongs to (another wrangler version?); its recorded head was not used`,
        );
        continue;
      }
      const account = db.prepare("SELECT name FROM __miniflare_do_name").get()?.name;
      // An object that never sealed has no anchor table, or an empty one: nothing recorded, nothing to hold against D1.
      const head = tables.has("audit_anchor")
        ? db.prepare("SELECT seq, hash FROM audit_anchor WHERE id = 1").get()
        : undefined;
      if (typeof account === "string" && head) heads.set(account, { seq: Number(head.seq), hash: String(head.hash) });
    } finally {
      db.close();
    }
  }
  return { heads, notes };
}
