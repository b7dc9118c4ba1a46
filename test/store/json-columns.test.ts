import { describe, expect, it } from "vitest";
import { AddressSchema } from "../../src/orders/evidence";
import { JsonColumn } from "../../src/store/json-columns";

// A stored JSON column is parsed once per distinct text and isolate; every
// reader of that text shares the value, so it must be frozen and must be
// exactly what the schema makes of the text.

const address = (city: string) =>
  JSON.stringify({
    recipient: "Jonas Becker",
    line1: "12 Pine St",
    line2: null,
    city,
    region: "TX",
    postal_code: "78701",
    country: "US",
  });

describe("JsonColumn", () => {
  it("answers the same text with the schema's value, shared and frozen all the way down", () => {
    const column = new JsonColumn(AddressSchema);
    const first = column.parse(address("Austin"));
    expect(first).toEqual(JSON.parse(address("Austin")));
    expect(column.parse(address("Austin"))).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(() => {
      (first as { city: string }).city = "Dallas";
    }).toThrow(TypeError);
  });

  it("parses a different text on its own, and refuses text the schema does not accept", () => {
    const column = new JsonColumn(AddressSchema);
    expect(column.parse(address("Dallas")).city).toBe("Dallas");
    expect(column.parse(address("Austin")).city).toBe("Austin");
    expect(() => column.parse(JSON.stringify({ city: "Austin" }))).toThrow();
    expect(() => column.parse("{not json")).toThrow(SyntaxError);
  });

  it("keeps at most its capacity, dropping the least recently read", () => {
    const column = new JsonColumn(AddressSchema, 2);
    const austin = column.parse(address("Austin"));
    const dallas = column.parse(address("Dallas"));
    column.parse(address("Austin"));
    column.parse(address("Houston"));
    // Austin was read again, so Dallas went first.
    expect(column.parse(address("Austin"))).toBe(austin);
    expect(column.parse(address("Dallas"))).not.toBe(dallas);
    expect(column.parse(address("Dallas"))).toEqual(dallas);
  });
});
