/**
 * SQL text built from a table's column list, so a statement names its columns
 * from the one list the table module keeps instead of a hand-typed copy.
 * Callers build their statements once, as module constants.
 */

/** `a, b, c`, or with a table alias `e.a, e.b, e.c`. */
export function columnList(columns: readonly string[], alias?: string): string {
  return columns.map((column) => (alias ? `${alias}.${column}` : column)).join(", ");
}

/** `?, ?, ?`: one positional placeholder per column. */
export function placeholders(columns: readonly string[]): string {
  return columns.map(() => "?").join(", ");
}

/** `a = ?, b = ?`: an UPDATE's assignments, bound in the list's order. */
export function assignments(columns: readonly string[]): string {
  return columns.map((column) => `${column} = ?`).join(", ");
}
