import { describe, expect, it } from "vitest";
import { ok, type Result } from "../../src/errors";
import type { Health, OrderRequest } from "../../src/orders/intake-schemas";
import type { BatchRecord } from "../../src/account/batch-history";
import type { BatchSummary } from "../../src/synth/batch-summary";
import { orderApiTarget, TARGET_NAME, unreachable, type OrderApiTarget, type PostedOrder } from "../../src/synth/order-api-target";
import { SyntheticTraffic, type TargetStatus } from "../../src/synth/synthetic-traffic";
import { throwingFetcher, withOrderApi } from "../helpers/account-agent";
import { ACME_TOKEN, connectClient } from "../helpers/mcp-client";
import { rpc } from "../helpers/mcp-raw";
import { countRequestIds, expectedOrders, freshSeed, hasOrder } from "../helpers/synthetic";
import { resourceJson, structuredOf } from "../helpers/tool-results";

// What happens when the ORDER_API target cannot be reached: check_target
// degrades to data, send_orders fails with a readable error that says how far
// the batch got, and replaying the seed finishes it.

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

function traffic(target: OrderApiTarget, concurrency = 1): { synthetic: SyntheticTraffic; recorded: Recorded[]; exclusiveRuns: () => number } {
  const recorded: Recorded[] = [];
  let exclusive = 0;
  const synthetic = new SyntheticTraffic({
    target,
    maxBatch: 100,
    concurrency,
    newBatchId: () => "B-test",
    exclusive: (task) => {
      exclusive++;
      return task();
    },
    recorder: {
      completed: (summary) => recorded.push({ kind: "completed", summary, error: null }),
      failed: (summary, _startedAt, error) => recorded.push({ kind: "failed", summary, error }),
    },
  });
  return { synthetic, recorded, exclusiveRuns: () => exclusive };
}

describe("SyntheticTraffic with an unreachable target", () => {
  const down = () => unreachable("connection refused");

  it("checkTarget reports reachable:false with null counts and the problem, instead of failing", async () => {
    const { synthetic } = traffic(fakeTarget(down));
    expect(await synthetic.checkTarget()).toEqual({
      target: TARGET_NAME,
      reachable: false,
      skus: null,
      customers: null,
      problem: `${PREFIX}connection refused`,
    });
  });

  it("checkTarget on a healthy target reports its counts and no problem", async () => {
    const { synthetic } = traffic(fakeTarget(() => ok(HEALTHY)));
    expect(await synthetic.checkTarget()).toEqual({ target: TARGET_NAME, reachable: true, skus: 8, customers: 5, problem: null });
  });

  it("send fails with 'cannot reach the order API at ORDER_API...', posts nothing and records a failed batch", async () => {
    const target = fakeTarget(down);
    const { synthetic, recorded } = traffic(target);
    const result = await synthetic.send({ count: 5, mode: "seeded", seed: 42 });
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
    const { synthetic, recorded, exclusiveRuns } = traffic(target);
    const result = await synthetic.send({ count, mode: "seeded", seed: 1 });
    expect(result).toEqual({ ok: false, error: { code: "bad_request", message } });
    expect(target.healthChecks).toBe(0);
    expect(exclusiveRuns()).toBe(0);
    expect(recorded).toEqual([]);
  });

  it("a target that fails mid-batch: the error says how many orders were sent, and the history keeps what got through", async () => {
    const target = fakeTarget(
      () => ok(HEALTHY),
      (_order, index) => (index < 3 ? ok({ status: 201, body: {} }) : unreachable("connection reset")),
    );
    const { synthetic, recorded } = traffic(target, 1);
    const result = await synthetic.send({ count: 10, mode: "seeded", seed: 7 });
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
    const { synthetic, recorded } = traffic(target, 1);
    const result = await synthetic.send({ count: 6, mode: "seeded", seed: 9 });
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
        sample_failures: ["422 ['problem 1']", "422 ['problem 3']"],
      },
    ]);
  });

  it("with concurrency, a mid-batch failure stops the remaining orders and records the ones that got through", async () => {
    const target = fakeTarget(
      () => ok(HEALTHY),
      (_order, index) => (index < 4 ? ok({ status: 201, body: {} }) : unreachable("connection reset")),
    );
    const { synthetic, recorded } = traffic(target, 4);
    const result = await synthetic.send({ count: 40, mode: "seeded", seed: 8 });
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

describe("orderApiTarget over a failing binding", () => {
  it("health() turns a throwing fetch into upstream_unreachable", async () => {
    const target = orderApiTarget(throwingFetcher("network connection lost"), "acme", 1000);
    expect(await target.health()).toEqual({
      ok: false,
      error: { code: "upstream_unreachable", message: `${PREFIX}network connection lost` },
    });
  });

  it("postOrder() turns a throwing fetch into upstream_unreachable", async () => {
    const target = orderApiTarget(throwingFetcher("network connection lost"), "acme", 1000);
    const [order] = expectedOrders("seeded", 1, 1);
    if (!order) throw new Error("no order");
    const result = await target.postOrder(order);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.message).toContain("cannot reach the order API at");
  });

  it("a health answer that is not a health report counts as unreachable", async () => {
    const fetcher = { fetch: async () => Response.json({ code: "internal" }, { status: 500 }) } as unknown as Fetcher;
    expect(await orderApiTarget(fetcher, "acme", 1000).health()).toEqual({
      ok: false,
      error: { code: "upstream_unreachable", message: `${PREFIX}GET /api/health answered 500 without a health report` },
    });
  });

  it("a target that does not answer in time is reported as timed out", async () => {
    const hanging = {
      fetch: (_input: string, init: RequestInit) =>
        new Promise<Response>((_resolve, reject) => {
          init.signal?.addEventListener("abort", () => reject(init.signal?.reason));
        }),
    } as unknown as Fetcher;
    expect(await orderApiTarget(hanging, "acme", 20).health()).toEqual({
      ok: false,
      error: { code: "upstream_unreachable", message: `${PREFIX}timed out` },
    });
  });

  it("every call names the account in the internal header and goes to /api on the binding", async () => {
    const seen: { method: string; path: string; account: string | null; contentType: string | null; body: string }[] = [];
    const recording = {
      fetch: async (input: string, init: RequestInit) => {
        const request = new Request(input, init);
        seen.push({
          method: request.method,
          path: new URL(request.url).pathname,
          account: request.headers.get("x-order-ops-account"),
          contentType: request.headers.get("content-type"),
          body: await request.text(),
        });
        return request.method === "GET" ? Response.json(HEALTHY) : Response.json({ order_id: "ORD-x" }, { status: 201 });
      },
    } as unknown as Fetcher;
    const target = orderApiTarget(recording, "globex", 1000);
    const [order] = expectedOrders("seeded", 3, 1);
    if (!order) throw new Error("no order");
    expect(await target.health()).toEqual({ ok: true, value: HEALTHY });
    expect(await target.postOrder(order)).toEqual({ ok: true, value: { status: 201, body: { order_id: "ORD-x" } } });
    expect(seen).toEqual([
      { method: "GET", path: "/api/health", account: "globex", contentType: null, body: "" },
      { method: "POST", path: "/api/orders", account: "globex", contentType: "application/json", body: JSON.stringify(order) },
    ]);
  });
});

describe("the AccountAgent with its ORDER_API binding down", () => {
  it("check_target over MCP answers reachable:false as data, not as an error", async () => {
    const answer = await withOrderApi("acme", () => throwingFetcher("connection refused"), (call) =>
      call(rpc(1, "tools/call", { name: "check_target", arguments: {} })),
    );
    expect(answer.result?.isError).toBeUndefined();
    const status = answer.result?.structuredContent as TargetStatus;
    expect(status).toEqual({ target: TARGET_NAME, reachable: false, skus: null, customers: null, problem: `${PREFIX}connection refused` });
  });

  it("send_orders over MCP is a tool error, and the batch history records it as failed with its seed", async () => {
    const seed = freshSeed();
    const answer = await withOrderApi("acme", () => throwingFetcher("connection refused"), (call) =>
      call(rpc(2, "tools/call", { name: "send_orders", arguments: { count: 3, seed } })),
    );
    expect(answer.result?.isError).toBe(true);
    expect(answer.result?.content).toEqual([{ type: "text", text: `${PREFIX}connection refused` }]);

    const client = await connectClient(ACME_TOKEN, "unreachable-history");
    try {
      const { batches } = resourceJson<{ batches: BatchRecord[] }>(await client.readResource({ uri: "synthetic://batches" }));
      const record = batches.find((b) => b.seed === seed);
      expect(record).toMatchObject({ seed, requested: 3, accepted: 0, outcome: "failed", error: `${PREFIX}connection refused` });
    } finally {
      await client.close();
    }
  });

  it("a binding that dies mid-batch: the error counts what was sent, and replaying the seed finishes without duplicates", async () => {
    const seed = freshSeed();
    const count = 10;
    const answer = await withOrderApi(
      "acme",
      (real) => {
        let posts = 0;
        return {
          fetch: (input: string, init: RequestInit) => {
            if (new URL(input).pathname === "/api/orders" && ++posts > 4) throw new Error("connection reset");
            return real.fetch(input, init);
          },
        } as unknown as Fetcher;
      },
      (call) => call(rpc(3, "tools/call", { name: "send_orders", arguments: { count, seed } })),
    );
    expect(answer.result?.isError).toBe(true);
    const text = (answer.result?.content as { text: string }[])[0]?.text ?? "";
    const match = /^cannot reach the order API at ORDER_API .*: connection reset; (\d+) of 10 orders were answered before the batch stopped, and sending the same seed again finishes the batch without duplicates$/.exec(text);
    expect(match, text).not.toBeNull();
    const sentBefore = Number(match?.[1]);
    expect(sentBefore).toBe(4);

    const batch = expectedOrders("seeded", seed, count);
    const requestIds = batch.map((o) => o.request_id);
    expect(await countRequestIds("acme", requestIds)).toBe(sentBefore);
    const landed: typeof batch = [];
    for (const order of batch) if (await hasOrder("acme", order.request_id)) landed.push(order);

    const client = await connectClient(ACME_TOKEN, "unreachable-replay");
    try {
      const { batches } = resourceJson<{ batches: BatchRecord[] }>(await client.readResource({ uri: "synthetic://batches" }));
      const record = batches.find((b) => b.seed === seed);
      // The failed batch keeps what did get through: 4 accepted orders and their total.
      expect(record).toEqual({
        batch_id: record?.batch_id,
        mode: "seeded",
        seed,
        requested: count,
        accepted: 4,
        rejected: 0,
        status_counts: { "201": 4 },
        accepted_total_cents: landed.reduce((sum, o) => sum + o.total_cents, 0),
        sample_failures: [],
        operator: "Test Operator (acme)",
        started_at: record?.started_at,
        finished_at: record?.finished_at,
        outcome: "failed",
        error: text,
      });
      expect(record?.accepted_total_cents).toBeGreaterThan(0);

      const replay = structuredOf<BatchSummary>(await client.callTool({ name: "send_orders", arguments: { count, seed } }));
      expect(replay.accepted).toBe(count);
      expect(replay.status_counts).toEqual({ "200": sentBefore, "201": count - sentBefore });
    } finally {
      await client.close();
    }
    expect(await countRequestIds("acme", requestIds)).toBe(count);
  });
});
