// The D1 database a (stopped or running) `wrangler dev` keeps on disk, opened
// through wrangler's platform proxy, for scripts that check what the server
// wrote: audit:verify, soak and the restart test.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { getPlatformProxy, unstable_readConfig } from "wrangler";
import type { AuditDatabase } from "../../src/store/audit-chain.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

export interface LocalDatabase {
  readonly db: AuditDatabase;
  /** Where the state lives, for messages. */
  readonly where: string;
  close(): Promise<void>;
}

/**
 * The DB binding of wrangler.toml on local state: `persistTo` is what was given
 * to `wrangler dev --persist-to` (its state is in persistTo/v3); by default the
 * state `npm run dev` uses, .wrangler/state/v3.
 */
export async function openLocalDatabase(persistTo?: string): Promise<LocalDatabase> {
  const config = unstable_readConfig({ config: path.join(root, "wrangler.toml") });
  const binding = config.d1_databases.find((d: { binding: string }) => d.binding === "DB");
  if (!binding) throw new Error("wrangler.toml has no D1 binding named DB");
  const statePath = persistTo ? path.resolve(persistTo, "v3") : path.join(root, ".wrangler", "state", "v3");
  // The full config would start the Worker's Durable Objects and entrypoints; the database is all this needs.
  const scratch = mkdtempSync(path.join(tmpdir(), "order-ops-db-"));
  const configPath = path.join(scratch, "wrangler.json");
  writeFileSync(
    configPath,
    JSON.stringify({
      name: "order-ops-local-db",
      compatibility_date: config.compatibility_date,
      d1_databases: [binding],
    }),
  );
  const proxy = await getPlatformProxy<{ DB: AuditDatabase }>({ configPath, persist: { path: statePath } });
  return {
    db: proxy.env.DB,
    where: statePath,
    close: async () => {
      await proxy.dispose();
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}

/** Opens the database, runs `read`, closes it again. */
export async function withLocalDatabase<T>(
  persistTo: string | undefined,
  read: (db: AuditDatabase) => Promise<T>,
): Promise<T> {
  const local = await openLocalDatabase(persistTo);
  try {
    return await read(local.db);
  } finally {
    await local.close();
  }
}

export async function count(db: AuditDatabase, sql: string): Promise<number> {
  const { results } = await db.prepare(sql).bind().all<{ n: number }>();
  return results[0]?.n ?? 0;
}
