import { describe, expect, it } from "vitest";
import { describeFailure } from "../../src/synth/send-batch";

// How a failed order's answer reads in a batch's or a run's rejection reasons:
// the intake API's own error list when there is one, else a bounded excerpt.

describe("describeFailure", () => {
  it.each([
    [
      422,
      { errors: ["unknown customer C-5093", "unknown sku SKU-9757"] },
      "422 unknown customer C-5093; unknown sku SKU-9757",
    ],
    [
      422,
      {
        code: "validation_failed",
        message: "order rejected: 1 problem(s)",
        errors: ["total mismatch: sent 9999, expected 3700"],
      },
      "422 total mismatch: sent 9999, expected 3700",
    ],
    [422, { errors: ["it's \\ odd", "['quoted']"] }, "422 it's \\ odd; ['quoted']"],
    [422, { errors: [] }, '422 {"errors":[]}'],
    [
      409,
      { code: "conflict", message: "request_id reused with a different body" },
      "409 request_id reused with a different body",
    ],
    [400, { errors: [1, 2], message: "bad" }, "400 bad"],
    [502, null, "502 (no body)"],
    [502, undefined, "502 (no body)"],
    [500, "oops", '500 "oops"'],
    [418, { teapot: true }, '418 {"teapot":true}'],
  ])("status %i with body %j -> %s", (status, body, expected) => {
    expect(describeFailure(status, body)).toBe(expected);
  });

  it("truncates an unrecognized body to 200 characters", () => {
    const text = describeFailure(500, { blob: "x".repeat(1000) });
    expect(text).toBe(`500 ${JSON.stringify({ blob: "x".repeat(1000) }).slice(0, 200)}`);
    expect(text.length).toBe(204);
  });
});
