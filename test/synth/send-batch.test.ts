import { describe, expect, it, vi } from "vitest";
import { ok, type Result } from "../../src/core/errors";
import type { OrderRequest } from "../../src/orders/intake-schemas";
import { referenceData } from "../../src/orders/reference-data";
import { generateOrders } from "../../src/synth/generators";
import { type PostedOrder, unreachable } from "../../src/synth/order-api-target";
import { sendBatch } from "../../src/synth/send-batch";

// sendBatch on its own, with a fake post: concurrency, tallying and failures.

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function orders(count: number, seed = 11): OrderRequest[] {
  return generateOrders("seeded", seed, count, referenceData);
}

/** A whole batch as sendBatch takes it: the orders and how many to send. */
function batchOf(list: readonly OrderRequest[]): { orders: readonly OrderRequest[]; count: number } {
  return { orders: list, count: list.length };
}

/** A post that tracks how many calls are in flight at once. */
function trackingPost(
  delayFor: (index: number) => number,
  answer: (index: number) => PostedOrder = () => ({ status: 201, body: {} }),
) {
  const state = { inFlight: 0, maxInFlight: 0, started: [] as number[], finished: [] as number[] };
  const indexOf = new Map<string, number>();
  return {
    state,
    register(batch: readonly OrderRequest[]) {
      for (const [index, order] of batch.entries()) indexOf.set(order.request_id, index);
    },
    post: async (order: OrderRequest): Promise<Result<PostedOrder>> => {
      const index = indexOf.get(order.request_id) ?? -1;
      state.started.push(index);
      state.inFlight++;
      state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
      await sleep(delayFor(index));
      state.inFlight--;
      state.finished.push(index);
      return ok(answer(index));
    },
  };
}

describe("concurrency", () => {
  it.each([1, 2, 3, 8])("never has more than %i requests in flight", async (concurrency) => {
    const batch = orders(20);
    const tracker = trackingPost((i) => (i * 7) % 5);
    tracker.register(batch);
    const result = await sendBatch({ ...batchOf(batch), post: tracker.post, concurrency });
    expect(result.failure).toBeUndefined();
    expect(result.tally.accepted).toBe(20);
    expect(tracker.state.maxInFlight).toBeLessThanOrEqual(concurrency);
    if (concurrency > 1) expect(tracker.state.maxInFlight).toBeGreaterThan(1);
    else expect(tracker.state.maxInFlight).toBe(1);
    expect([...tracker.state.started].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));
  });

  it("does not start more workers than there are orders", async () => {
    const batch = orders(3);
    const tracker = trackingPost(() => 2);
    tracker.register(batch);
    await sendBatch({ ...batchOf(batch), post: tracker.post, concurrency: 32 });
    expect(tracker.state.maxInFlight).toBe(3);
    expect(tracker.state.started).toHaveLength(3);
  });

  it("posts each order exactly once, starting them in batch order", async () => {
    const batch = orders(12);
    const tracker = trackingPost((i) => (i % 3) * 2);
    tracker.register(batch);
    await sendBatch({ ...batchOf(batch), post: tracker.post, concurrency: 4 });
    expect(tracker.state.started).toEqual(Array.from({ length: 12 }, (_, i) => i));
  });
});

describe("tally", () => {
  it("counts statuses, sums accepted totals (2xx only) and keeps failures in batch order, not completion order", async () => {
    const batch = orders(10);
    const statuses = [201, 422, 200, 409, 500, 204, 422, 300, 422, 422];
    // Every post waits until the test releases it; the test releases them last-first.
    const release: (() => void)[] = [];
    const finished: number[] = [];
    const post = async (order: OrderRequest): Promise<Result<PostedOrder>> => {
      const index = batch.indexOf(order);
      await new Promise<void>((resolve) => release.push(resolve));
      finished.push(index);
      const status = statuses[index] ?? 0;
      return ok({
        status,
        body: status < 300 ? {} : { code: "x", message: `reason ${index}`, errors: [`problem ${index}`] },
      });
    };
    const running = sendBatch({ ...batchOf(batch), post, concurrency: 10 });
    for (let spins = 0; release.length < 10 && spins < 1000; spins++) await Promise.resolve();
    expect(release).toHaveLength(10);
    for (let i = 9; i >= 0; i--) {
      release[i]?.();
      await sleep(0);
    }
    const result = await running;
    expect(finished).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
    const acceptedTotal = [0, 2, 5].reduce((sum, i) => sum + (batch[i]?.total_cents ?? 0), 0);
    expect(result).toEqual({
      tally: {
        sent: 10,
        accepted: 3,
        rejected: 7,
        status_counts: { "200": 1, "201": 1, "204": 1, "300": 1, "409": 1, "422": 4, "500": 1 },
        accepted_total_cents: acceptedTotal,
        sample_failures: ["422 problem 1", "409 problem 3", "500 problem 4", "422 problem 6", "300 problem 7"],
      },
      failure: undefined,
    });
  });

  it("reports each answer once, counting up to the total", async () => {
    const batch = orders(6);
    const tracker = trackingPost((i) => 6 - i);
    tracker.register(batch);
    const progress: [number, number][] = [];
    const onAnswer = (tally: { answered: number }): void => {
      progress.push([tally.answered, 6]);
    };
    await sendBatch({ ...batchOf(batch), post: tracker.post, concurrency: 3, onAnswer });
    expect(progress).toEqual([1, 2, 3, 4, 5, 6].map((n) => [n, 6]));
  });

  it("posts nothing new while the promise onAnswer returned is pending, then carries on", async () => {
    // Fake timers: every post answers on a timer, so once no timer is left the batch is idle, and
    // what it started by then is all it will start while held, however slow the machine.
    vi.useFakeTimers();
    try {
      const batch = orders(8);
      const tracker = trackingPost(() => 0);
      tracker.register(batch);
      let release: () => void = () => undefined;
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      const running = sendBatch({
        ...batchOf(batch),
        post: tracker.post,
        concurrency: 2,
        onAnswer: (tally) => (tally.answered === 3 ? held : undefined),
      });
      await vi.runAllTimersAsync();
      expect(vi.getTimerCount()).toBe(0);
      // The answer that paused the batch was the third; the worker still in flight may add a fourth.
      const startedWhileHeld = tracker.state.started.length;
      expect(startedWhileHeld).toBeGreaterThanOrEqual(3);
      expect(startedWhileHeld).toBeLessThanOrEqual(4);
      expect(tracker.state.finished).toHaveLength(startedWhileHeld);
      release();
      await vi.runAllTimersAsync();
      const result = await running;
      expect(result.tally.accepted).toBe(8);
      expect(tracker.state.started).toHaveLength(8);
    } finally {
      vi.useRealTimers();
    }
  });

  it("a pause that fails does not fail the batch", async () => {
    const batch = orders(4);
    const result = await sendBatch({
      ...batchOf(batch),
      post: async () => ok({ status: 201, body: {} }),
      concurrency: 2,
      onAnswer: (tally) => (tally.answered === 1 ? Promise.reject(new Error("listener gone")) : undefined),
    });
    expect(result).toMatchObject({ failure: undefined, tally: { accepted: 4 } });
  });

  it("an empty batch is an empty tally", async () => {
    expect(
      await sendBatch({ ...batchOf([]), post: async () => ok({ status: 201, body: {} }), concurrency: 4 }),
    ).toEqual({
      tally: { sent: 0, accepted: 0, rejected: 0, status_counts: {}, accepted_total_cents: 0, sample_failures: [] },
      failure: undefined,
    });
  });
});

describe("failure", () => {
  const RESUME_HINT = "and sending the same seed again finishes the batch without duplicates";

  it("stops at an unreachable target, says how many orders were sent, and tallies the ones that got through", async () => {
    const batch = orders(10);
    let calls = 0;
    const result = await sendBatch({
      ...batchOf(batch),
      concurrency: 1,
      post: async () => (++calls > 6 ? unreachable("boom") : ok({ status: 201, body: {} })),
    });
    expect(calls).toBe(7);
    expect(result).toEqual({
      tally: {
        sent: 6,
        accepted: 6,
        rejected: 0,
        status_counts: { "201": 6 },
        accepted_total_cents: batch.slice(0, 6).reduce((sum, o) => sum + o.total_cents, 0),
        sample_failures: [],
      },
      failure: {
        code: "upstream_unreachable",
        message: `cannot reach the order API at ORDER_API (service binding in wrangler.toml): boom; 6 of 10 orders were answered before the batch stopped, ${RESUME_HINT}`,
      },
    });
  });

  it("a failure on the very first post gives an empty tally and 0 sent", async () => {
    const result = await sendBatch({ ...batchOf(orders(5)), concurrency: 1, post: async () => unreachable("refused") });
    expect(result).toEqual({
      tally: { sent: 0, accepted: 0, rejected: 0, status_counts: {}, accepted_total_cents: 0, sample_failures: [] },
      failure: {
        code: "upstream_unreachable",
        message: `cannot reach the order API at ORDER_API (service binding in wrangler.toml): refused; 0 of 5 orders were answered before the batch stopped, ${RESUME_HINT}`,
      },
    });
  });

  it("with concurrency, the partial tally holds every order that got through (even after the failure), in batch order", async () => {
    const batch = orders(10);
    // Orders 0-4 start together. 2 fails first; the other four were already in
    // flight and finish afterwards, last-first: 4 (200), 3 (409), 1 (422), 0 (201).
    const answers = new Map<number, () => Result<PostedOrder>>([
      [0, () => ok({ status: 201, body: {} })],
      [1, () => ok({ status: 422, body: { errors: ["problem 1"] } })],
      [2, () => unreachable("connection reset")],
      [3, () => ok({ status: 409, body: { message: "problem 3" } })],
      [4, () => ok({ status: 200, body: {} })],
    ]);
    const release = new Map<number, () => void>();
    const posted: number[] = [];
    const post = async (order: OrderRequest): Promise<Result<PostedOrder>> => {
      const index = batch.indexOf(order);
      posted.push(index);
      await new Promise<void>((resolve) => release.set(index, resolve));
      const answer = answers.get(index);
      if (!answer) throw new Error(`order ${index} should never have been posted`);
      return answer();
    };
    const running = sendBatch({ ...batchOf(batch), post, concurrency: 5 });
    for (let spins = 0; release.size < 5 && spins < 1000; spins++) await Promise.resolve();
    expect([...release.keys()].sort()).toEqual([0, 1, 2, 3, 4]);
    for (const index of [2, 4, 3, 1, 0]) {
      release.get(index)?.();
      await sleep(0);
    }
    const result = await running;
    // No worker takes a new order once the failure is known.
    expect(posted).toEqual([0, 1, 2, 3, 4]);
    expect(result.tally).toEqual({
      sent: 4,
      accepted: 2,
      rejected: 2,
      status_counts: { "200": 1, "201": 1, "409": 1, "422": 1 },
      accepted_total_cents: (batch[0]?.total_cents ?? 0) + (batch[4]?.total_cents ?? 0),
      sample_failures: ["422 problem 1", "409 problem 3"],
    });
    expect(result.failure?.message).toMatch(
      /: connection reset; 4 of 10 orders were answered before the batch stopped, /,
    );
  });
});
