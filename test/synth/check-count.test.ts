import { describe, expect, it } from "vitest";
import { checkCount } from "../../src/synth/batch-sender";

// The MAX_BATCH guardrail: readable refusals, never a silent clamp.

describe("checkCount", () => {
  it.each([
    [0, 100, "count must be at least 1, got 0"],
    [-5, 100, "count must be at least 1, got -5"],
    [
      101,
      100,
      "count 101 exceeds the server's MAX_BATCH of 100; send smaller batches or raise MAX_BATCH in the server environment",
    ],
    [
      500,
      100,
      "count 500 exceeds the server's MAX_BATCH of 100; send smaller batches or raise MAX_BATCH in the server environment",
    ],
    [
      6,
      5,
      "count 6 exceeds the server's MAX_BATCH of 5; send smaller batches or raise MAX_BATCH in the server environment",
    ],
    [Number.NaN, 100, "count must be a whole number, got NaN"],
    [2.5, 100, "count must be a whole number, got 2.5"],
    [0.5, 100, "count must be a whole number, got 0.5"],
    [-0.5, 100, "count must be a whole number, got -0.5"],
    [100.5, 100, "count must be a whole number, got 100.5"],
    [Number.POSITIVE_INFINITY, 100, "count must be a whole number, got Infinity"],
  ])("count %s with MAX_BATCH %i is refused: %s", (count, maxBatch, message) => {
    expect(checkCount(count, maxBatch)).toEqual({ ok: false, error: { code: "bad_request", message } });
  });

  it.each([
    [1, 100],
    [100, 100],
    [5, 5],
    [1, 1],
  ])("count %s with MAX_BATCH %i is allowed unchanged", (count, maxBatch) => {
    expect(checkCount(count, maxBatch)).toEqual({ ok: true, value: count });
  });
});
