import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/core/encoding";
import { type OrderRequest, OrderRequestSchema } from "../../src/orders/intake-schemas";
import { storeIntakeOrder } from "../../src/store/intake-orders";
import {
  type ErrorBody,
  getOrder,
  postOrder,
  type Receipt,
  readJson,
  uniqueRequestId,
  validOrder,
} from "../helpers/orders";
import { countOrdersFor } from "../helpers/rows";

// A replay is told from a reused request_id by comparing the stored order with
// the one sent again: every field the request carries counts (the store reads
// the list from OrderRequestSchema), and a 409 names the fields that differ. Orders stored
// while replays were compared by a hash of the request keep being compared by it.

// Valid alternatives to validOrder's fields (seed/customers.json, seed/catalog.json).
const CHANGES = [
  { field: "customer_id", change: { customer_id: "CUST-0001", channel: "web" } },
  { field: "channel", change: { customer_id: "CUST-0003", channel: "store" } },
  {
    field: "lines",
    change: {
      lines: [
        { sku: "SKU-5510", quantity: 1, unit_price_cents: 1850 },
        { sku: "SKU-5510", quantity: 1, unit_price_cents: 1850 },
      ],
    },
  },
] as const;

/**
 * A request with every field the schema has, optional ones included: a field
 * added to OrderRequestSchema does not compile here until it has a value, and
 * then the test below changes it and expects a 409 naming it.
 */
const EVERY_FIELD: Required<OrderRequest> = {
  request_id: "every-field",
  customer_id: "CUST-0005",
  channel: "partner",
  currency: "USD",
  lines: [{ sku: "SKU-5510", quantity: 2, unit_price_cents: 1850 }],
  total_cents: 3700,
};

/** Another value of the same type: what a client that reused its request_id by mistake might send. */
function changed(value: unknown): unknown {
  if (typeof value === "string") return `${value}-other`;
  if (typeof value === "number") return value + 1;
  if (typeof value === "boolean") return !value;
  if (Array.isArray(value)) return [...value, ...value];
  if (value !== null && typeof value === "object") return { ...value, changed: true };
  return "a value where there was none";
}

describe("a request_id used again", () => {
  it.each(CHANGES)("with another $field answers 409 naming it, and keeps the original", async ({ field, change }) => {
    const requestId = uniqueRequestId("field");
    const original = validOrder(requestId, { customer_id: "CUST-0003", channel: "web" });
    const created = await postOrder(original);
    expect(created.status).toBe(201);
    const changed = await postOrder({ ...original, ...change });
    expect(changed.status).toBe(409);
    const { order_id } = await readJson<Receipt>(created);
    expect(await readJson<ErrorBody>(changed)).toEqual({
      code: "conflict",
      message: `request_id ${requestId} was already used for a different order (${order_id}), whose ${field} differs; use a new request_id`,
    });
    const stored = await readJson<{ customer_id: string; channel: string; lines: unknown[] }>(await getOrder(order_id));
    expect(stored).toMatchObject({ customer_id: "CUST-0003", channel: "web", lines: original.lines });
    expect((await postOrder(original)).status).toBe(200);
    expect(await countOrdersFor("acme", requestId)).toBe(1);
  });

  it("is told apart by every field of the request: the store answers 409 naming whichever one differs", async () => {
    const caller = { account: "acme", actor: "replay test" };
    const fields = Object.keys(OrderRequestSchema.shape).filter((field) => field !== "request_id");
    expect(fields.length).toBeGreaterThanOrEqual(5);
    for (const field of fields) {
      const order = { ...EVERY_FIELD, request_id: uniqueRequestId(field.slice(0, 6)) };
      const created = await storeIntakeOrder(env.DB, caller, order);
      if (!created.ok || created.value.kind !== "created")
        throw new Error(`${field}: the first request was not stored`);
      const other = { ...order, [field]: changed(order[field as keyof typeof order]) };
      expect(await storeIntakeOrder(env.DB, caller, other), field).toEqual({
        ok: false,
        error: {
          code: "conflict",
          message: `request_id ${order.request_id} was already used for a different order (${created.value.receipt.order_id}), whose ${field} differs; use a new request_id`,
        },
      });
      const again = await storeIntakeOrder(env.DB, caller, order);
      expect(again.ok && again.value.kind, field).toBe("replayed");
      expect(await countOrdersFor("acme", order.request_id)).toBe(1);
    }
  });

  it("the store's check reads every field: an unchanged copy is a replay, a changed one never is (self-check)", () => {
    for (const value of Object.values(EVERY_FIELD)) expect(changed(value)).not.toEqual(value);
    expect(Object.keys(EVERY_FIELD).sort()).toEqual(Object.keys(OrderRequestSchema.shape).sort());
  });

  it("stores the order's own fields and no hash of the request", async () => {
    const requestId = uniqueRequestId("nohash");
    const created = await postOrder(validOrder(requestId));
    const { order_id } = await readJson<Receipt>(created);
    const row = await env.DB.prepare(
      "SELECT request_hash, customer_id, channel, currency, total_cents, lines FROM orders WHERE account = 'acme' AND order_id = ?",
    )
      .bind(order_id)
      .first();
    expect(row).toEqual({
      request_hash: null,
      customer_id: "CUST-0005",
      channel: "partner",
      currency: "USD",
      total_cents: 3700,
      lines: JSON.stringify(validOrder(requestId).lines),
    });
  });
});

describe("an order stored with a request_hash", () => {
  async function storeHashed(requestId: string, hash: string): Promise<string> {
    const order = validOrder(requestId);
    const orderId = `ORD-${requestId}`;
    await env.DB.prepare(
      `INSERT INTO orders (order_id, account, source, request_id, request_hash, customer_id, channel, currency, total_cents, status, version, lines, created_at, updated_at)
       VALUES (?, 'acme', 'intake', ?, ?, ?, ?, ?, ?, 'accepted', 1, ?, ?, ?)`,
    )
      .bind(
        orderId,
        requestId,
        hash,
        order.customer_id,
        order.channel,
        order.currency,
        order.total_cents,
        JSON.stringify(order.lines),
        "2026-12-01T00:00:00.000Z",
        "2026-12-01T00:00:00.000Z",
      )
      .run();
    return orderId;
  }

  it("is replayed when the hash of the request matches", async () => {
    const requestId = uniqueRequestId("hashed");
    const orderId = await storeHashed(requestId, await sha256Hex(JSON.stringify(validOrder(requestId))));
    const replay = await postOrder(validOrder(requestId));
    expect(replay.status).toBe(200);
    expect((await readJson<Receipt>(replay)).order_id).toBe(orderId);
  });

  it("is compared by that hash, not by its fields: another hash answers 409 although the fields agree", async () => {
    const requestId = uniqueRequestId("hashed");
    await storeHashed(requestId, "0".repeat(64));
    expect((await postOrder(validOrder(requestId))).status).toBe(409);
    expect(await countOrdersFor("acme", requestId)).toBe(1);
  });
});
