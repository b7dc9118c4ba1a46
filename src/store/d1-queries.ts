/**
 * What a statement runs on: the database itself, where every query goes to
 * the primary, or a read session of it (read-session.ts). A statement built
 * on one must be run by the same one.
 */
export type D1Queries = Pick<D1Database, "prepare" | "batch">;
