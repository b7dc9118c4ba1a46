import { describe, expect, it } from "vitest";
import { ok, type Result } from "../../src/core/errors";
import type { Health, OrderRequest } from "../../src/orders/intake-schemas";
import { BatchSender, type BatchJournal } from "../../src/synth/batch-sender";
import type { BatchRecord, BatchSummary } from "../../src/synth/batch-summary";
import type { TallySnapshot } from "../../src/synth/tally";
import { TARGET_NAME, unreachable, type OrderApiTarget, type PostedOrder } from "../../src/synth/order-api-target";
import { checkTarget } from "../../src/synth/target-check";
import { expectedOrders } from "../helpers/synthetic";

// The batch sender and the target check on their own, with a fake target:
// an unreachable target is data for check_target and a readable failure for a
// batch, which keeps in its journal whatever got through.

const PREFIX = "cannot reach the order API at ORDER_API (service binding in wrangler.toml): ";
const HEALTHY: Health = { status: "ok", skus: 8, customers: 5 };

interface FakeTarget extends OrderApiTarget {
  readonly posted: OrderRequest[];
  healthChecks: number;
}

function fakeTarget(
  health: () => Result<Health>,
  post: (order: OrderRequest, index: number) => Result<PostedOrder> = () => ok({ status: 201, body: {} }),
): FakeTarget {
  const target: FakeTarget = {
    posted: [],
    healthChecks: 0,
    async health() {
      target.healthChecks++;
      return health();
    },
    async postOrder(order) {
      const index = target.posted.length;
      target.posted.push(order);
      await Promise.resolve();
      return post(order, index);
    },
  };
  return target;
}

interface Recorded {
  kind: "completed" | "failed";
  summary: BatchSummary;
  error: string | null;
}

const OPERATOR = "Unit Operator";

/** A journal write, with how many orders the target had been sent by then. */
interface JournalWrite<T> {
  readonly posted: number;
  readonly value: T;
}

interface Traffic {
  sender: BatchSender;
  recorded: Recorded[];
  opened: () => number;
  /** Every open, and every running-tally update, in order. */
  openings: JournalWrite<BatchRecord>[];
  updates: JournalWrite<TallySnapshot>[];
}

/**
 * A BatchSender over a fake target, with an in-memory journal. `recorded`
 * lists each batch as the journal holds it once closed, in the shape of the
 * batch summary that send_orders reports.
 */
function traffic(target: FakeTarget, concurrency = 1): Traffic {
  const recorded: Recorded[] = [];
  const openings: JournalWrite<BatchRecord>[] = [];
  const updates: JournalWrite<TallySnapshot>[] = [];
  const open = new Map<string, BatchRecord>();
  let opened = 0;
  const journal: BatchJournal = {
    open(record) {
      opened++;
      openings.push({ posted: target.posted.length, value: record });
      open.set(record.batch_id, record);
    },
    update(batchId, tally) {
      if (!open.has(batchId)) throw new Error(`updated a batch that was never opened: ${batchId}`);
      updates.push({ posted: target.posted.length, value: tally });
    },
    close(batchId, tally, outcome, _finishedAt, error) {
      const record = open.get(batchId);
      if (!record) throw new Error(`closed a batch that was never opened: ${batchId}`);
      const { sent: _sent, ...counts } = tally;
      const { operator: _operator, started_at: _started, finished_at: _finished, outcome: _outcome, error: _error, ...summary } = record;
      recorded.push({ kind: outcome, summary: { ...summary, ...counts }, error });
    },
  };
  const sender = new BatchSender({
    target: () => target,
    maxBatch: 100,
    concurrency,
    journal,
    newBatchId: () => "B-test",
    now: () => new Date(),
  });
  return { sender, recorded, opened: () => opened, openings, updates };
}

describe("BatchSender with an unreachable target", () => {
  const down = () => unreachable("connection refused");

  it("checkTarget reports reachable:false with null counts and the problem, instead of failing", async () => {
    expect(await checkTarget(fakeTarget(down))).toEqual({
      target: TARGET_NAME,
      reachable: false,
      skus: null,
      customers: null,
      problem: `${PREFIX}connection refused`,
    });
  });

  it("checkTarget on a healthy target reports its counts and no problem", async () => {
    expect(await checkTarget(fakeTarget(() => ok(HEALTHY)))).toEqual({ target: TARGET_NAME, reachable: true, skus: 8, customers: 5, problem: null });
  });

  it("send fails with 'cannot reach the order API at ORDER_API...', posts nothing and records a failed batch", async () => {
    const target = fakeTarget(down);
    const { sender, recorded } = traffic(target);
    const result = await sender.send({ count: 5, mode: "seeded", seed: 42 }, OPERATOR);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe("upstream_unreachable");
    expect(result.error.message.startsWith("cannot reach the order API at ORDER_API")).toBe(true);
    expect(result.error.message).toBe(`${PREFIX}connection refused`);
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
        error: `${PREFIX}connection refused`,
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
    const message = `${PREFIX}connection reset; 3 of 10 orders were answered before the batch stopped, and sending the same seed again finishes the batch without duplicates`;
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
        index >= 4 ? unreachable("connection reset") : ok(index % 2 === 0 ? { status: 201, body: {} } : { status: 422, body: { errors: [`problem ${index}`] } }),
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


describe("BatchSender progress", () => {
  it("reports about 20 times, ending at the total, and posts nothing while a report is still on its way", async () => {
    const target = fakeTarget(() => ok(HEALTHY));
    const { sender } = traffic(target, 4);
    const reports: { sent: number; postedBefore: number; postedAfter: number }[] = [];
    const result = await sender.send({ count: 100, mode: "seeded", seed: 21 }, OPERATOR, async (sent) => {
      const postedBefore = target.posted.length;
      // A slow listener: the client is still taking the report.
      await new Promise((resolve) => setTimeout(resolve, 5));
      reports.push({ sent, postedBefore, postedAfter: target.posted.length });
    });
    expect(result.ok).toBe(true);
    expect(reports.map((r) => r.sent)).toEqual(Array.from({ length: 20 }, (_, i) => (i + 1) * 5));
    // Orders already in flight may finish, but none is posted while the report is pending.
    for (const report of reports) expect(report.postedAfter).toBe(report.postedBefore);
  });
});

describe("BatchSender journal", () => {
  it("opens the batch as running, with its seed, before the first order is posted, and updates its tally as answers come in", async () => {
    // Every fifth order is rejected, so the running tally has both kinds.
    const target = fakeTarget(
      () => ok(HEALTHY),
      (_order, index) => ok(index % 5 === 4 ? { status: 422, body: { errors: [`problem ${index}`] } } : { status: 201, body: {} }),
    );
    const { sender, openings, updates, recorded } = traffic(target, 1);
    const result = await sender.send({ count: 25, mode: "seeded", seed: 11 }, OPERATOR);
    expect(result.ok).toBe(true);

    expect(openings).toHaveLength(1);
    expect(openings[0]?.posted).toBe(0);
    expect(openings[0]?.value).toMatchObject({
      batch_id: "B-test",
      seed: 11,
      mode: "seeded",
      requested: 25,
      outcome: "running",
      accepted: 0,
      rejected: 0,
      finished_at: null,
      operator: OPERATOR,
    });
    // One order in flight at a time: each update lands before the next order leaves.
    expect(updates.map(({ posted, value }) => ({ posted, sent: value.sent, accepted: value.accepted, rejected: value.rejected, status_counts: value.status_counts }))).toEqual([
      { posted: 10, sent: 10, accepted: 8, rejected: 2, status_counts: { "201": 8, "422": 2 } },
      { posted: 20, sent: 20, accepted: 16, rejected: 4, status_counts: { "201": 16, "422": 4 } },
    ]);
    expect(updates[1]?.value.sample_failures).toEqual(["422 problem 4", "422 problem 9", "422 problem 14", "422 problem 19"]);
    expect(recorded.map((r) => [r.kind, r.summary.accepted, r.summary.rejected])).toEqual([["completed", 20, 5]]);
  });

  it("a batch that fails before any order still opened first, so its seed is on record", async () => {
    const target = fakeTarget(() => unreachable("connection refused"));
    const { sender, openings, updates, recorded } = traffic(target);
    await sender.send({ count: 5, mode: "seeded", seed: undefined }, OPERATOR);
    expect(openings).toHaveLength(1);
    expect(Number.isInteger(openings[0]?.value.seed)).toBe(true);
    expect(updates).toEqual([]);
    expect(recorded.map((r) => [r.kind, r.summary.seed])).toEqual([["failed", openings[0]?.value.seed]]);
  });
});
