import { describe, expect, it } from "vitest";
import { backoffSeconds, judgeDelivery, RETRY_MAX_DELAY_SECONDS } from "../../src/notify/retry-policy";

// What each answer from a receiver leads to: delivered, retried with backoff,
// or dead-lettered at once.

const answered = (status: number, retryAfterSeconds?: number) => ({
  kind: "answered" as const,
  status,
  retryAfterSeconds,
  detail: "",
});

describe("judgeDelivery", () => {
  it.each([200, 201, 202, 204])("%i is delivered", (status) => {
    expect(judgeDelivery(answered(status), 1)).toEqual({ kind: "delivered" });
  });

  it.each([408, 429, 500, 502, 503, 504])("%i is retried with backoff", (status) => {
    expect(judgeDelivery(answered(status), 3)).toEqual({
      kind: "retry",
      delaySeconds: 40,
      error: `the receiver answered ${status}`,
    });
  });

  it("a network error or timeout is retried, with what happened", () => {
    expect(judgeDelivery({ kind: "unreachable", detail: "no answer within 10 s" }, 1)).toEqual({
      kind: "retry",
      delaySeconds: 10,
      error: "no answer within 10 s",
    });
  });

  it("a Retry-After longer than the backoff is honoured, up to the ceiling; a shorter one does not shorten it", () => {
    expect(judgeDelivery(answered(429, 120), 1)).toMatchObject({ kind: "retry", delaySeconds: 120 });
    expect(judgeDelivery(answered(503, 5), 2)).toMatchObject({ kind: "retry", delaySeconds: 20 });
    expect(judgeDelivery(answered(503, 86_400), 1)).toMatchObject({
      kind: "retry",
      delaySeconds: RETRY_MAX_DELAY_SECONDS,
    });
  });

  it.each([400, 401, 403, 404, 410, 422])("%i is dead-lettered at once, naming the status", (status) => {
    expect(
      judgeDelivery({ kind: "answered", status, retryAfterSeconds: undefined, detail: '{"error":"nope"}' }, 1),
    ).toEqual({
      kind: "dead",
      reason: `the receiver answered ${status}: {"error":"nope"}; a ${status} is not retried`,
    });
  });

  it("a redirect is dead-lettered: it is never followed", () => {
    expect(judgeDelivery(answered(301), 1)).toEqual({
      kind: "dead",
      reason: "the receiver answered 301; redirects are not followed, so set the webhook URL to where it points",
    });
  });
});

describe("backoffSeconds", () => {
  it("doubles from 10 s with each attempt and stops at an hour", () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 50].map(backoffSeconds)).toEqual([
      10, 20, 40, 80, 160, 320, 640, 1280, 2560, 3600, 3600,
    ]);
  });
});
