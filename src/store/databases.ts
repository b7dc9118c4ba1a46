/**
 * What a statement runs on: the database itself, where every query goes to
 * the primary, or a read session of it (read-session.ts). A statement built
 * on one must be run by the same one.
 */
export type D1Queries = Pick<D1Database, "prepare" | "batch">;

/**
 * The D1 database that holds an account's orders and audit trail. Every
 * account shares `DB` today. One database is one writer, so past a few
 * hundred orders a second in all the next step is spreading accounts over
 * several databases (docs/scale.md); then this function, and the bindings
 * in wrangler.toml, are what change. Every account-scoped D1 access asks here,
 * a request's read session too (accountReads in read-session.ts).
 */
export function accountDatabase(env: Pick<Env, "DB">, _account: string): D1Database {
  return env.DB;
}

/**
 * The database of the rows that belong to no one account: approver sign-in
 * sessions and the outbox drain's scan. Read on the primary, never through a
 * session: a sign-out must end the session everywhere at once.
 */
export function deploymentDatabase(env: Pick<Env, "DB">): D1Database {
  return env.DB;
}
