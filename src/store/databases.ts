import { isOn } from "../config/on-off";
import { loadSeed } from "./seed-loader";

/**
 * The D1 database that holds an account's orders and audit trail. Every
 * account shares `DB` today. One database is one writer, so past a few
 * hundred orders a second in all the next step is spreading accounts over
 * several databases (docs/scale.md); then this function, and the bindings
 * in wrangler.toml, are what change. Every account-scoped D1 access asks here,
 * a request's read session too (accountReads in read-session.ts), and runs its
 * statements on readyDatabase() of what it got: nothing reaches the database another way.
 */
export function accountDatabase(env: Pick<Env, "DB" | "DEMO_DATA">, _account: string): D1Database {
  if (isOn(env.DEMO_DATA)) withDemoData.add(env.DB);
  else withDemoData.delete(env.DB);
  return env.DB;
}

/** The databases opened where DEMO_DATA is on; no other database is ever given a demo order. */
const withDemoData = new WeakSet<D1Database>();
const demoLoads = new WeakMap<D1Database, Promise<unknown>>();

/**
 * An account database ready for statements: where DEMO_DATA is on, the demo
 * operations dataset is loaded first, once per database binding (retried
 * after a failure), so no caller has to remember to; elsewhere it is as is.
 */
export async function readyDatabase(db: D1Database): Promise<D1Database> {
  if (!withDemoData.has(db)) return db;
  let pending = demoLoads.get(db);
  if (!pending) {
    pending = loadSeed(db)
      .then((loaded) => {
        // Refused over real orders: the database is served as it is, and the log says why there is no demo data.
        if (!loaded.ok) console.warn(`demo data: ${loaded.error.message}`);
      })
      .catch((error: unknown) => {
        demoLoads.delete(db);
        throw error;
      });
    demoLoads.set(db, pending);
  }
  await pending;
  return db;
}

/**
 * The database of the rows that belong to no one account: approver sign-in
 * sessions and the outbox drain's scan. Read on the primary, never through a
 * session: a sign-out must end the session everywhere at once.
 */
export function deploymentDatabase(env: Pick<Env, "DB">): D1Database {
  return env.DB;
}
