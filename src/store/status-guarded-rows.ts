import type { z } from "zod/v4";

/**
 * A Durable Object table that keeps each record whole, as JSON validated by
 * its schema, beside the columns its lookups need, and whose writes are
 * guarded by the stored status (proposals, traffic runs, capacity searches).
 */
export interface StatusGuardedTable<R extends { readonly status: string }> {
  readonly table: string;
  readonly idColumn: string;
  /** The column holding the whole record as JSON. */
  readonly recordColumn: string;
  readonly schema: z.ZodType<R>;
  id(record: R): string;
  /** What an insert writes besides the id, the status and the record, by column. */
  lookups(record: R): Readonly<Record<string, SqlStorageValue>>;
}

export function insertRow<R extends { readonly status: string }>(
  sql: SqlStorage,
  table: StatusGuardedTable<R>,
  record: R,
): void {
  const values: Record<string, SqlStorageValue> = {
    [table.idColumn]: table.id(record),
    status: record.status,
    ...table.lookups(record),
    [table.recordColumn]: JSON.stringify(table.schema.parse(record)),
  };
  const columns = Object.keys(values);
  sql.exec(
    `INSERT INTO ${table.table} (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`,
    ...Object.values(values),
  );
}

/**
 * Writes the record's new state only if its stored status is still
 * `expected`, and says whether it did: a transition decided on an outdated
 * read (a tick in flight when a stop landed, an expiry racing an approval) is
 * simply not written.
 */
export function updateIfStatus<R extends { readonly status: string }>(
  sql: SqlStorage,
  table: StatusGuardedTable<R>,
  record: R,
  expected: R["status"],
): boolean {
  const cursor = sql.exec(
    `UPDATE ${table.table} SET status = ?, ${table.recordColumn} = ? WHERE ${table.idColumn} = ? AND status = ?`,
    record.status,
    JSON.stringify(table.schema.parse(record)),
    table.id(record),
    expected,
  );
  return cursor.rowsWritten > 0;
}
