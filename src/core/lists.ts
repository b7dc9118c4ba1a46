/** Names in a sentence, joined by `conjunction`: "a", "a or b", "a, b or c". */
function joined(items: readonly string[], conjunction: string): string {
  if (items.length <= 1) return items[0] ?? "";
  return `${items.slice(0, -1).join(", ")} ${conjunction} ${items.at(-1)}`;
}

/** "a, b or c": any one of them. */
export function orList(items: readonly string[]): string {
  return joined(items, "or");
}

/** "a, b and c": all of them. */
export function andList(items: readonly string[]): string {
  return joined(items, "and");
}
