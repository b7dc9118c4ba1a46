import { describe, expect, it } from "vitest";
import { ok } from "../../src/core/errors";
import { unreachable } from "../../src/synth/order-api-target";
import { fakeTarget, HEALTHY, OPERATOR, traffic, UNREACHABLE_PREFIX } from "../helpers/synth-fakes";
import { expectedOrders } from "../helpers/synthetic";

// The batch sender on its own, with a fake target: an unreachable target is a
// readable failure for a batch, which keeps in its journal whatever got
// through.

describe("BatchSender with an unreachable target", () => {
  const down = () => unreachable("connection refused");

  it("send fails with 'cannot reach the order API at ORDER_API...', posts nothing and records a failed batch", async () => {
    const target = fakeTarget(down);
    const { sender, recorded } = traffic(target);
    const result = await sender.send({ count: 5, mode: "seeded", seed: 42 }, OPERATOR);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe("upstream_unreachable");
    expect(result.error.message.startsWith("cannot reach the order API at ORDER_API")).toBe(true);
    expect(result.error.message).toBe(`${UNREACHABLE_PREFIX}connection refused`);
    expect(target.posted).toHaveLength(0);
    expect(recorded).toEqual([
      {
        kind: "failed",
        summary: {
          batch_id: "B-test",
          mode: "seeded",
          seed: 42,
          requested: 5,
          accepted: 0,
          rejected: 0,
          status_counts: {},
          accepted_total_cents: 0,
          sample_failures: [],
        },
        error: `${UNREACHABLE_PREFIX}connection refused`,
      },
    ]);
  });

  it.each([
    [0, "count must be at least 1, got 0"],
    [2.5, "count must be a whole number, got 2.5"],
    [Number.NaN, "count must be a whole number, got NaN"],
  ])("a bad count (%s) is refused before the target is even asked", async (count, message) => {
    const target = fakeTarget(down);
    const { sender, recorded, opened } = traffic(target);
    const result = await sender.send({ count, mode: "seeded", seed: 1 }, OPERATOR);
    expect(result).toEqual({ ok: false, error: { code: "bad_request", message } });
    expect(target.healthChecks).toBe(0);
    expect(opened()).toBe(0);
    expect(recorded).toEqual([]);
  });

  it("a target that fails mid-batch: the error says how many orders were sent, and the history keeps what got through", async () => {
    const target = fakeTarget(
      () => ok(HEALTHY),
      (_order, index) => (index < 3 ? ok({ status: 201, body: {} }) : unreachable("connection reset")),
    );
    const { sender, recorded } = traffic(target, 1);
    const result = await sender.send({ count: 10, mode: "seeded", seed: 7 }, OPERATOR);
    const message = `${UNREACHABLE_PREFIX}connection reset; 3 of 10 orders were answered before the batch stopped, and sending the same seed again finishes the batch without duplicates`;
    expect(result).toEqual({ ok: false, error: { code: "upstream_unreachable", message } });
    // It stops at the first failure instead of hammering a dead target.
    expect(target.posted).toHaveLength(4);
    expect(recorded).toEqual([
      {
        kind: "failed",
        summary: {
          batch_id: "B-test",
          mode: "seeded",
          seed: 7,
          requested: 10,
          accepted: 3,
          rejected: 0,
          status_counts: { "201": 3 },
          accepted_total_cents: expectedOrders("seeded", 7, 3).reduce((sum, o) => sum + o.total_cents, 0),
          sample_failures: [],
        },
        error: message,
      },
    ]);
  });

  it("a mid-batch failure after some rejections records them too, with their sample failures", async () => {
    const target = fakeTarget(
      () => ok(HEALTHY),
      (_order, index) =>
        index >= 4
          ? unreachable("connection reset")
          : ok(index % 2 === 0 ? { status: 201, body: {} } : { status: 422, body: { errors: [`problem ${index}`] } }),
    );
    const { sender, recorded } = traffic(target, 1);
    const result = await sender.send({ count: 6, mode: "seeded", seed: 9 }, OPERATOR);
    expect(result.ok).toBe(false);
    const [first, , third] = expectedOrders("seeded", 9, 3);
    expect(recorded.map((r) => r.summary)).toEqual([
      {
        batch_id: "B-test",
        mode: "seeded",
        seed: 9,
        requested: 6,
        accepted: 2,
        rejected: 2,
        status_counts: { "201": 2, "422": 2 },
        accepted_total_cents: (first?.total_cents ?? 0) + (third?.total_cents ?? 0),
        sample_failures: ["422 problem 1", "422 problem 3"],
      },
    ]);
  });

  it("with concurrency, a mid-batch failure stops the remaining orders and records the ones that got through", async () => {
    const target = fakeTarget(
      () => ok(HEALTHY),
      (_order, index) => (index < 4 ? ok({ status: 201, body: {} }) : unreachable("connection reset")),
    );
    const { sender, recorded } = traffic(target, 4);
    const result = await sender.send({ count: 40, mode: "seeded", seed: 8 }, OPERATOR);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.message).toMatch(/; 4 of 40 orders were answered before the batch stopped/);
    expect(target.posted.length).toBeLessThan(40);
    const through = target.posted.slice(0, 4);
    expect(recorded).toHaveLength(1);
    expect(recorded[0]).toMatchObject({
      kind: "failed",
      error: result.error.message,
      summary: {
        requested: 40,
        accepted: 4,
        rejected: 0,
        status_counts: { "201": 4 },
        accepted_total_cents: through.reduce((sum, o) => sum + o.total_cents, 0),
        sample_failures: [],
      },
    });
  });
});
