/**
 * The scratch database for migration and tampering tests: empty until a test
 * applies migrations to it, and never seen by the rest of the suite.
 */
import type { D1Migration } from "cloudflare:test";
import { env } from "cloudflare:workers";

const testEnv = env as unknown as { TEST_MIGRATIONS: D1Migration[]; MIGRATION_SCRATCH_DB: D1Database };
export const scratchDb = testEnv.MIGRATION_SCRATCH_DB;
export const allMigrations = testEnv.TEST_MIGRATIONS;

/** The migrations up to and including the one whose name starts with `name` (e.g. "0003"). */
export function migrationsUpTo(name: string): D1Migration[] {
  const index = allMigrations.findIndex((m) => m.name.startsWith(name));
  if (index < 0) throw new Error(`no migration ${name}`);
  return allMigrations.slice(0, index + 1);
}
