import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { OrderRequestSchema } from "../../src/orders/intake-schemas";
import { candidateOrderId, storeIntakeOrder } from "../../src/store/intake-orders";
import { insertFreshOrder } from "../helpers/fresh-orders";
import {
  type ErrorBody,
  getOrder,
  postOrder,
  postRaw,
  type Receipt,
  randomPrefix,
  readJson,
  uniqueRequestId,
  validOrder,
} from "../helpers/orders";
import { countOrdersFor, countOrdersWithId, countOrdersWithPrefix } from "../helpers/rows";
import { ACME_TOKEN } from "../helpers/tokens";

// request_id is the idempotency key per account: replays answer 200 with the
// original receipt, a reused key with other content answers 409, and D1 holds
// exactly one row per (account, request_id).

describe("replays", () => {
  it("the same request again answers 200 with a byte-identical body and stores one row", async () => {
    const requestId = uniqueRequestId("replay");
    const first = await postOrder(validOrder(requestId));
    expect(first.status).toBe(201);
    const firstBody = await first.text();

    const second = await postOrder(validOrder(requestId));
    expect(second.status).toBe(200);
    expect(await second.text()).toBe(firstBody);

    const third = await postOrder(validOrder(requestId));
    expect(third.status).toBe(200);
    expect(await third.text()).toBe(firstBody);
    expect(await countOrdersFor("acme", requestId)).toBe(1);
  });

  it("the same order with its JSON keys in another order is a replay, not a conflict", async () => {
    const requestId = uniqueRequestId("keyorder");
    const order = validOrder(requestId);
    expect((await postOrder(order)).status).toBe(201);
    const reordered = `{"total_cents":3700,"lines":[{"unit_price_cents":1850,"quantity":2,"sku":"SKU-5510"}],"currency":"USD","channel":"partner","customer_id":"CUST-0005","request_id":"${requestId}"}`;
    const replay = await postRaw(reordered);
    expect(replay.status).toBe(200);
    expect(await readJson<Receipt>(replay)).toEqual({
      order_id: `ORD-${requestId.slice(0, 8)}`,
      customer_id: "CUST-0005",
      lines: 1,
      total_cents: 3700,
    });
    expect(await countOrdersFor("acme", requestId)).toBe(1);
  });

  it("the same request_id with a different payload answers 409 conflict and keeps the original", async () => {
    const requestId = uniqueRequestId("conflict");
    const created = await postOrder(validOrder(requestId));
    expect(created.status).toBe(201);
    const { order_id } = await readJson<Receipt>(created);

    const changed = validOrder(requestId, {
      lines: [{ sku: "SKU-5510", quantity: 3, unit_price_cents: 1850 }],
      total_cents: 5550,
    });
    const conflict = await postOrder(changed);
    expect(conflict.status).toBe(409);
    expect(await readJson<ErrorBody>(conflict)).toEqual({
      code: "conflict",
      message: `request_id ${requestId} was already used for a different order (${order_id}), whose lines and total_cents differ; use a new request_id`,
    });
    expect(await countOrdersFor("acme", requestId)).toBe(1);
    const stored = await readJson<{ total_cents: number; lines: unknown[] }>(await getOrder(order_id));
    expect(stored.total_cents).toBe(3700);
    expect(stored.lines).toEqual([{ sku: "SKU-5510", quantity: 2, unit_price_cents: 1850 }]);
  });

  it("10 concurrent identical POSTs create exactly one order", async () => {
    const requestId = uniqueRequestId("concurrent");
    const responses = await Promise.all(Array.from({ length: 10 }, () => postOrder(validOrder(requestId))));
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
    const bodies = new Set(await Promise.all(responses.map((r) => r.text())));
    expect([...bodies]).toEqual([
      JSON.stringify({
        order_id: `ORD-${requestId.slice(0, 8)}`,
        customer_id: "CUST-0005",
        lines: 1,
        total_cents: 3700,
      }),
    ]);
    expect(await countOrdersFor("acme", requestId)).toBe(1);
  });

  it("a rejected (422) request stores nothing", async () => {
    const requestId = uniqueRequestId("rejected");
    const response = await postOrder(validOrder(requestId, { total_cents: 1 }));
    expect(response.status).toBe(422);
    expect(await countOrdersFor("acme", requestId)).toBe(0);
    expect(await countOrdersWithPrefix(requestId.slice(0, 8))).toBe(0);
  });
});

describe("order ids", () => {
  it("request_ids sharing their first 8 characters: the first gets ORD-<prefix>, later ones ORD-<request_id>", async () => {
    const prefix = randomPrefix();
    const first = await postOrder(validOrder(`${prefix}-one`));
    const second = await postOrder(validOrder(`${prefix}-two`));
    const third = await postOrder(validOrder(`${prefix}-three`));
    expect([first.status, second.status, third.status]).toEqual([201, 201, 201]);
    expect((await readJson<Receipt>(first)).order_id).toBe(`ORD-${prefix}`);
    expect((await readJson<Receipt>(second)).order_id).toBe(`ORD-${prefix}-two`);
    expect((await readJson<Receipt>(third)).order_id).toBe(`ORD-${prefix}-three`);

    // A replay answers the order's own id, not a fresh candidate.
    const replay = await postOrder(validOrder(`${prefix}-two`));
    expect(replay.status).toBe(200);
    expect((await readJson<Receipt>(replay)).order_id).toBe(`ORD-${prefix}-two`);
    expect(await countOrdersWithPrefix(prefix)).toBe(3);
  });

  it("30 request_ids sharing one prefix all succeed, each with its own id", async () => {
    const prefix = randomPrefix();
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) {
      const response = await postOrder(validOrder(`${prefix}-n${i}`));
      expect(response.status).toBe(201);
      ids.push((await readJson<Receipt>(response)).order_id);
    }
    expect(ids).toEqual([`ORD-${prefix}`, ...Array.from({ length: 29 }, (_, i) => `ORD-${prefix}-n${i + 1}`)]);
    expect(await countOrdersWithPrefix(prefix)).toBe(30);
  });

  it("concurrent request_ids sharing a prefix still get distinct order ids", async () => {
    const prefix = randomPrefix();
    const requestIds = Array.from({ length: 5 }, (_, i) => `${prefix}-c${i}`);
    const responses = await Promise.all(requestIds.map((requestId) => postOrder(validOrder(requestId))));
    expect(responses.map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);
    const ids = (await Promise.all(responses.map((r) => readJson<Receipt>(r)))).map((r) => r.order_id);
    // Whichever request wins the short id, every other one gets its full request_id.
    expect(ids.filter((id) => id === `ORD-${prefix}`)).toHaveLength(1);
    for (const [i, id] of ids.entries()) expect([`ORD-${prefix}`, `ORD-${requestIds[i]}`]).toContain(id);
    expect(new Set(ids).size).toBe(5);
    expect(await countOrdersWithPrefix(prefix)).toBe(5);
  });

  it("a request_id of 8 characters or fewer whose short id is taken gets ORD-<request_id>-2", async () => {
    // In acme, ORD-1002 is a seeded operations order, and request_id "1002" maps to it.
    const response = await postOrder(validOrder("1002"), { token: ACME_TOKEN });
    expect(response.status).toBe(201);
    expect((await readJson<Receipt>(response)).order_id).toBe("ORD-1002-2");
    const seeded = await env.DB.prepare(
      "SELECT source, request_id FROM orders WHERE account = 'acme' AND order_id = 'ORD-1002'",
    ).first();
    expect(seeded).toEqual({ source: "operations", request_id: null });
    expect(await countOrdersWithId("acme", "ORD-1002-2")).toBe(1);
  });
});

describe("candidateOrderId", () => {
  it("tries ORD-<first 8 characters>, then ORD-<request_id>, then ORD-<request_id>-2, -3, ...", () => {
    expect([0, 1, 2, 3, 15].map((attempt) => candidateOrderId("manual-0002", attempt))).toEqual([
      "ORD-manual-0",
      "ORD-manual-0002",
      "ORD-manual-0002-2",
      "ORD-manual-0002-3",
      "ORD-manual-0002-15",
    ]);
  });

  it("a request_id of 8 characters or fewer never repeats a candidate: it goes straight to the suffixes", () => {
    expect([0, 1, 2].map((attempt) => candidateOrderId("1001", attempt))).toEqual([
      "ORD-1001",
      "ORD-1001-2",
      "ORD-1001-3",
    ]);
  });
});

describe("storeIntakeOrder when every candidate id is taken", () => {
  it("answers conflict after 16 candidates and stores nothing", async () => {
    // Unreachable through ordinary traffic: occupy all 16 candidates directly.
    const account = "acme";
    const requestId = uniqueRequestId("exhausted");
    const taken = Array.from({ length: 16 }, (_, attempt) => candidateOrderId(requestId, attempt));
    expect(new Set(taken).size).toBe(16);
    for (const orderId of taken) await insertFreshOrder({ account, orderId, exception: null });
    const order = OrderRequestSchema.parse(validOrder(requestId));
    expect(await storeIntakeOrder(env.DB, { account, actor: "test" }, order)).toEqual({
      ok: false,
      error: {
        code: "conflict",
        message: `could not allocate an order id for request_id ${requestId}; use a request_id with a more distinctive prefix`,
      },
    });
    expect(await countOrdersFor(account, requestId)).toBe(0);
    // Another account is not affected: the same request there gets the short id.
    const elsewhere = await storeIntakeOrder(env.DB, { account: "globex", actor: "test" }, order);
    expect(elsewhere.ok && elsewhere.value).toEqual({
      kind: "created",
      receipt: { order_id: taken[0], customer_id: "CUST-0005", lines: 1, total_cents: 3700 },
    });
  });
});
