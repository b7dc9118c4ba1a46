import type { z } from "zod/v4";

/**
 * A stored JSON column parsed through its zod schema, remembered per isolate
 * by the column's exact text. Reading an order parses its evidence, address
 * and lines on every call, and the evidence parse was the largest part of
 * get_order_details; agents read the same orders again and again. The value
 * is a function of the text alone, so whoever stored that text gets what the
 * schema makes of it, and nothing else: no account, no caller in the key,
 * because none is in the value. Values are frozen, since every reader of the
 * same text now holds the same object.
 */
export class JsonColumn<S extends z.ZodType> {
  private readonly parsed = new Map<string, z.output<S>>();

  constructor(
    private readonly schema: S,
    /** Distinct texts kept; the oldest read is dropped first. */
    private readonly capacity: number = 256,
  ) {}

  parse(text: string): z.output<S> {
    const known = this.parsed.get(text);
    if (known !== undefined) {
      // Read again: the newest entry, last to be dropped.
      this.parsed.delete(text);
      this.parsed.set(text, known);
      return known;
    }
    const value = deepFreeze(this.schema.parse(JSON.parse(text)));
    this.parsed.set(text, value);
    if (this.parsed.size > this.capacity) this.parsed.delete(this.parsed.keys().next().value as string);
    return value;
  }
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
