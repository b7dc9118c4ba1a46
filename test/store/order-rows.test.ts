import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { OrderRequest } from "../../src/orders/intake-schemas";
import { storeIntakeOrder } from "../../src/store/intake-orders";
import { ORDERS_TABLE_COLUMNS } from "../../src/store/order-rows";
import { uniqueRequestId, validOrder } from "../helpers/orders";

// The orders table's columns are listed once, in src/store/order-rows.ts;
// every insert and select is built from that list, so it must be the table.

describe("the orders column list", () => {
  it("is exactly the orders table's columns", async () => {
    const { results } = await env.DB.prepare("SELECT name FROM pragma_table_info('orders')").all<{ name: string }>();
    expect(results.map((c) => c.name).sort()).toEqual([...ORDERS_TABLE_COLUMNS].sort());
  });

  it("writes an intake order the way the table's defaults would have: version 1, its key (a replay is told by comparing the order, so no hash), no operations columns", async () => {
    const account = `cols-${crypto.randomUUID().slice(0, 8)}`;
    const requestId = uniqueRequestId("cols");
    const stored = await storeIntakeOrder(env.DB, { account, actor: "Ada" }, validOrder(requestId) as OrderRequest);
    if (!stored.ok) throw new Error(stored.error.message);
    const row = await env.DB.prepare("SELECT * FROM orders WHERE account = ? AND order_id = ?")
      .bind(account, stored.value.receipt.order_id)
      .first<Record<string, unknown>>();
    expect(row).toMatchObject({
      source: "intake",
      status: "accepted",
      version: 1,
      request_id: requestId,
      shipping_address: null,
      evidence: null,
      exception_type: null,
    });
    expect(row?.request_hash).toBeNull();
    expect(row?.created_at).toBe(row?.updated_at);
  });
});
