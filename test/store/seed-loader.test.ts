import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import catalogJson from "../../seed/catalog.json";
import customersJson from "../../seed/customers.json";
import { ExceptionTypeSchema } from "../../src/orders/evidence";
import { seedOrders } from "../../src/orders/operations-seed";
import { referenceData } from "../../src/orders/reference-data";
import { findOrderProblems } from "../../src/orders/validate-order";
import { loadSeed, SEED_VERSION } from "../../src/store/seed-loader";
import { getOrder, readJson, warmUp } from "../helpers/orders";
import { countRows } from "../helpers/rows";
import { ACME_TOKEN, GLOBEX_TOKEN } from "../helpers/tokens";

// seed/operations.json is loaded into D1 on the first request, once per
// database, and a reload never duplicates or overwrites a row.

beforeAll(warmUp);

/** Every operations row, every column, in a stable order. */
async function snapshotOperations(): Promise<Record<string, unknown>[]> {
  const { results } = await env.DB.prepare("SELECT * FROM orders WHERE source = 'operations' ORDER BY order_id").all<
    Record<string, unknown>
  >();
  return results;
}

async function snapshotBookkeeping(): Promise<{ runs: unknown[]; sequence: unknown[] }> {
  const runs = (await env.DB.prepare("SELECT * FROM seed_runs ORDER BY seed_version").all()).results;
  const sequence = (await env.DB.prepare("SELECT * FROM order_number_sequence ORDER BY name").all()).results;
  return { runs, sequence };
}

describe("the operations dataset in D1", () => {
  it("holds every seed order: 26 in all, 21 for acme and 5 for globex", async () => {
    expect(seedOrders().length).toBe(26);
    expect(await countRows("SELECT count(*) AS n FROM orders WHERE source = 'operations'")).toBe(seedOrders().length);
    expect(await countRows("SELECT count(*) AS n FROM orders WHERE source = 'operations' AND account = 'acme'")).toBe(
      21,
    );
    expect(await countRows("SELECT count(*) AS n FROM orders WHERE source = 'operations' AND account = 'globex'")).toBe(
      5,
    );
  });

  it("holds ORD-1001 as in the seed file", async () => {
    const row = await env.DB.prepare(
      "SELECT account, source, customer_id, channel, currency, total_cents, status, version, lines, shipping_address, request_id, exception_type FROM orders WHERE account = 'acme' AND order_id = 'ORD-1001'",
    ).first<Record<string, unknown>>();
    expect(row).not.toBeNull();
    expect({
      ...row,
      lines: JSON.parse(String(row?.lines)),
      shipping_address: JSON.parse(String(row?.shipping_address)),
    }).toEqual({
      account: "acme",
      source: "operations",
      customer_id: "CUST-0001",
      channel: "web",
      currency: "USD",
      total_cents: 6600,
      status: "delivered",
      version: 1,
      lines: [
        { sku: "SKU-2240", quantity: 1, unit_price_cents: 4200 },
        { sku: "SKU-1180", quantity: 2, unit_price_cents: 1200 },
      ],
      shipping_address: {
        recipient: "Maya Lindqvist",
        line1: "482 Alder Street",
        line2: "Apt 3B",
        city: "Portland",
        region: "OR",
        postal_code: "97205",
        country: "US",
      },
      request_id: null,
      exception_type: null,
    });
  });

  it("serves ORD-1001 through the API to acme only", async () => {
    const asAcme = await getOrder("ORD-1001", ACME_TOKEN);
    expect(asAcme.status).toBe(200);
    expect(await readJson<Record<string, unknown>>(asAcme)).toMatchObject({
      order_id: "ORD-1001",
      customer_id: "CUST-0001",
      status: "delivered",
      total_cents: 6600,
    });
    expect((await getOrder("ORD-1001", GLOBEX_TOKEN)).status).toBe(404);
  });

  it("has active exceptions of each of the 5 types", async () => {
    const { results } = await env.DB.prepare(
      "SELECT exception_type, count(*) AS n FROM orders WHERE exception_state = 'active' GROUP BY exception_type ORDER BY exception_type",
    ).all<{ exception_type: string; n: number }>();
    expect(results.map((r) => r.exception_type)).toEqual([...ExceptionTypeSchema.options].sort());
    expect(results.every((r) => r.n >= 1)).toBe(true);
    const withException = seedOrders().filter((o) => o.exception !== null).length;
    expect(results.reduce((sum, r) => sum + r.n, 0)).toBe(withException);
  });

  it("anchors relative times to the load: created_at is created_minutes_ago before anchored_at", async () => {
    const run = await env.DB.prepare("SELECT anchored_at FROM seed_runs WHERE seed_version = ?")
      .bind(SEED_VERSION)
      .first<{ anchored_at: string }>();
    expect(run).not.toBeNull();
    const anchorMs = Date.parse(run?.anchored_at ?? "");
    expect(anchorMs % 60_000).toBe(0);
    const { results } = await env.DB.prepare(
      "SELECT order_id, created_at, exception_opened_at FROM orders WHERE source = 'operations'",
    ).all<{
      order_id: string;
      created_at: string;
      exception_opened_at: string | null;
    }>();
    const byId = new Map(results.map((r) => [r.order_id, r]));
    for (const order of seedOrders()) {
      const row = byId.get(order.order_id);
      expect(row?.created_at).toBe(new Date(anchorMs - order.created_minutes_ago * 60_000).toISOString());
      expect(row?.exception_opened_at).toBe(
        order.exception ? new Date(anchorMs - order.exception.opened_minutes_ago * 60_000).toISOString() : null,
      );
    }
  });
});

describe("loadSeed", () => {
  it("called again answers already_loaded and changes no row", async () => {
    const orders = await snapshotOperations();
    const bookkeeping = await snapshotBookkeeping();
    expect(orders.length).toBe(26);
    expect(await loadSeed(env.DB)).toEqual({ ok: true, value: "already_loaded" });
    expect(await snapshotOperations()).toEqual(orders);
    expect(await snapshotBookkeeping()).toEqual(bookkeeping);
  });

  it("after its seed_runs row is deleted, reloads without duplicating or overwriting any row", async () => {
    await env.DB.prepare(
      "UPDATE orders SET status = 'changed-by-test', version = 2 WHERE account = 'acme' AND order_id = 'ORD-1001'",
    ).run();
    try {
      const before = await snapshotOperations();
      const { sequence } = await snapshotBookkeeping();
      await env.DB.prepare("DELETE FROM seed_runs WHERE seed_version = ?").bind(SEED_VERSION).run();

      // A later anchor would give every row new timestamps if anything were overwritten.
      expect(await loadSeed(env.DB, new Date(Date.now() + 7 * 24 * 60 * 60_000))).toEqual({
        ok: true,
        value: "loaded",
      });

      const after = await snapshotOperations();
      expect(after).toEqual(before);
      expect(after.find((r) => r.order_id === "ORD-1001")).toMatchObject({ status: "changed-by-test", version: 2 });
      expect(await countRows("SELECT count(*) AS n FROM orders WHERE source = 'operations'")).toBe(26);
      expect(await countRows("SELECT count(*) AS n FROM seed_runs WHERE seed_version = ?", SEED_VERSION)).toBe(1);
      expect((await snapshotBookkeeping()).sequence).toEqual(sequence);
      expect(await loadSeed(env.DB)).toEqual({ ok: true, value: "already_loaded" });
    } finally {
      await env.DB.prepare(
        "UPDATE orders SET status = 'delivered', version = 1 WHERE account = 'acme' AND order_id = 'ORD-1001'",
      ).run();
    }
  });
});

describe("the seed files", () => {
  it("the catalog has 8 SKUs, exactly one (SKU-7720) out of stock", () => {
    expect(catalogJson.skus).toHaveLength(8);
    expect(catalogJson.skus.filter((s) => !s.in_stock).map((s) => s.sku)).toEqual(["SKU-7720"]);
    expect(referenceData.skus.size).toBe(8);
    expect(referenceData.sellable).toHaveLength(7);
  });

  it("has 5 customers, each with at least one allowed channel", () => {
    expect(customersJson.customers).toHaveLength(5);
    for (const customer of customersJson.customers) expect(customer.allowed_channels.length).toBeGreaterThanOrEqual(1);
    expect(referenceData.customers.size).toBe(5);
  });

  it("every seed order uses known customers on allowed channels and known skus at catalog prices, with a correct total", () => {
    // Operations orders may hold an out-of-stock sku (that is what a missing-sku
    // fulfillment hold is about), so only that rule is set aside here.
    for (const order of seedOrders()) {
      const problems = findOrderProblems(
        {
          request_id: order.order_id,
          customer_id: order.customer_id,
          channel: order.channel,
          currency: "USD",
          lines: order.lines,
          total_cents: order.total_cents,
        },
        referenceData,
      ).filter((problem) => !problem.endsWith("is out of stock"));
      expect({ order: order.order_id, problems }).toEqual({ order: order.order_id, problems: [] });
    }
  });

  it("order ids are unique and every duplicate points at an existing order of the same account", () => {
    const ids = seedOrders().map((o) => o.order_id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const order of seedOrders()) {
      if (!order.duplicate) continue;
      const original = seedOrders().find((o) => o.order_id === order.duplicate?.of_order_id);
      expect(original?.account).toBe(order.account);
    }
  });
});
