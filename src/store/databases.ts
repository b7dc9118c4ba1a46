/**
 * The D1 database that holds an account's orders and audit trail. Every
 * account shares `DB` today. One database is one writer, so past a few
 * hundred orders a second in all the next step is spreading accounts over
 * several databases (docs/scale.md); then this function, and the bindings
 * in wrangler.toml, are what change. Every account-scoped D1 access asks here.
 */
export function accountDatabase(env: Pick<Env, "DB">, _account: string): D1Database {
  return env.DB;
}
