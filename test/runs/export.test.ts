import { describe, expect, it } from "vitest";
import { INTERVALS_CSV_HEADER, intervalCsvLine } from "../../src/runs/export";
import { RunIntervalSchema } from "../../src/runs/run-schemas";

describe("intervals CSV", () => {
  it("has a column for every interval field, in the schema's order, so a new field cannot miss it", () => {
    const fields = Object.keys(RunIntervalSchema.shape);
    expect(INTERVALS_CSV_HEADER).toBe(`${fields.join(",")}\r\n`);
    const interval = RunIntervalSchema.parse(Object.fromEntries(fields.map((field, index) => [field, index])));
    expect(intervalCsvLine(interval)).toBe(`${fields.map((_, index) => index).join(",")}\r\n`);
  });
});
