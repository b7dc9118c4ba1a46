import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/core/encoding";
import { getOrder, postOrder, type Receipt, readJson, uniqueRequestId, validOrder } from "../helpers/orders";
import { countOrdersFor } from "../helpers/rows";

// A replay is told from a reused request_id by comparing the stored order with
// the one sent again: every field the request carries counts. Orders stored
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

describe("a request_id used again", () => {
  it.each(CHANGES)("with another $field answers 409 and keeps the original", async ({ change }) => {
    const requestId = uniqueRequestId("field");
    const original = validOrder(requestId, { customer_id: "CUST-0003", channel: "web" });
    const created = await postOrder(original);
    expect(created.status).toBe(201);
    const changed = await postOrder({ ...original, ...change });
    expect(changed.status).toBe(409);
    const { order_id } = await readJson<Receipt>(created);
    const stored = await readJson<{ customer_id: string; channel: string; lines: unknown[] }>(await getOrder(order_id));
    expect(stored).toMatchObject({ customer_id: "CUST-0003", channel: "web", lines: original.lines });
    expect((await postOrder(original)).status).toBe(200);
    expect(await countOrdersFor("acme", requestId)).toBe(1);
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
