import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { rejectionMessage } from "../../src/orders/rejections";
import {
  type ErrorBody,
  getOrder,
  type OrderInput,
  postOrder,
  type Receipt,
  readJson,
  uniqueRequestId,
  validOrder,
} from "../helpers/orders";
import { countOrdersFor } from "../helpers/rows";
import { ACME_TOKEN } from "../helpers/tokens";

// The happy paths of the public order intake API and its business-rule (422) answers.

describe("health", () => {
  it.each(["/health", "/api/health"])("GET %s answers the reference data counts", async (path) => {
    const response = await exports.default.fetch(`http://localhost${path}`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await response.text()).toBe('{"status":"ok","skus":8,"customers":5}');
  });
});

describe("the seed's curl example", () => {
  it("is accepted once (201), and the same order with a wrong total is rejected (422)", async () => {
    const accepted = await postOrder({
      request_id: "manual-0001",
      customer_id: "CUST-0005",
      channel: "partner",
      currency: "USD",
      lines: [{ sku: "SKU-5510", quantity: 2, unit_price_cents: 1850 }],
      total_cents: 3700,
    });
    expect(accepted.status).toBe(201);
    expect(await accepted.text()).toBe(
      '{"order_id":"ORD-manual-0","customer_id":"CUST-0005","lines":1,"total_cents":3700}',
    );
    expect(await countOrdersFor("acme", "manual-0001")).toBe(1);

    const rejected = await postOrder({
      request_id: "manual-0002",
      customer_id: "CUST-0005",
      channel: "partner",
      currency: "USD",
      lines: [{ sku: "SKU-5510", quantity: 2, unit_price_cents: 1850 }],
      total_cents: 9999,
    });
    expect(rejected.status).toBe(422);
    const body = await readJson<ErrorBody>(rejected);
    expect(body.code).toBe("validation_failed");
    expect(body.errors).toEqual([rejectionMessage.totalMismatch(9999, 3700)]);
    expect(await countOrdersFor("acme", "manual-0002")).toBe(0);

    // Corrected, manual-0002 shares manual-0001's first 8 characters, so it gets its full request_id.
    const corrected = await postOrder({
      request_id: "manual-0002",
      customer_id: "CUST-0005",
      channel: "partner",
      currency: "USD",
      lines: [{ sku: "SKU-5510", quantity: 2, unit_price_cents: 1850 }],
      total_cents: 3700,
    });
    expect(corrected.status).toBe(201);
    expect(await corrected.text()).toBe(
      '{"order_id":"ORD-manual-0002","customer_id":"CUST-0005","lines":1,"total_cents":3700}',
    );
  });
});

describe("POST /api/orders then GET /api/orders/:id", () => {
  it("stores the order as sent and reads it back for the same account", async () => {
    const requestId = uniqueRequestId("roundtrip");
    const lines = [
      { sku: "SKU-1180", quantity: 3, unit_price_cents: 1200 },
      { sku: "SKU-6300", quantity: 1, unit_price_cents: 2450 },
    ];
    const before = Date.now();
    const created = await postOrder(
      validOrder(requestId, { customer_id: "CUST-0003", channel: "store", lines, total_cents: 6050 }),
    );
    expect(created.status).toBe(201);
    const receipt = await readJson<Receipt>(created);
    expect(receipt).toEqual({
      order_id: `ORD-${requestId.slice(0, 8)}`,
      customer_id: "CUST-0003",
      lines: 2,
      total_cents: 6050,
    });

    const read = await getOrder(receipt.order_id);
    expect(read.status).toBe(200);
    const view = await readJson<Record<string, unknown>>(read);
    expect(view).toEqual({
      order_id: receipt.order_id,
      customer_id: "CUST-0003",
      channel: "store",
      currency: "USD",
      status: "accepted",
      lines,
      total_cents: 6050,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    const createdAt = Date.parse(String(view.created_at));
    expect(createdAt).toBeGreaterThanOrEqual(before - 1000);
    expect(createdAt).toBeLessThanOrEqual(Date.now() + 1000);

    const row = await env.DB.prepare(
      "SELECT account, source, status, version FROM orders WHERE account = 'acme' AND order_id = ?",
    )
      .bind(receipt.order_id)
      .first<{ account: string; source: string; status: string; version: number }>();
    expect(row).toEqual({ account: "acme", source: "intake", status: "accepted", version: 1 });
  });

  it.each(["application/json; charset=utf-8", "APPLICATION/JSON", "application/vnd.order+json"])(
    "accepts content-type %s",
    async (contentType) => {
      const requestId = uniqueRequestId("ctype");
      const response = await postOrder(validOrder(requestId), { contentType });
      expect(response.status).toBe(201);
      expect(await countOrdersFor("acme", requestId)).toBe(1);
    },
  );

  it("accepts an MCP bearer token of the public intake account", async () => {
    const requestId = uniqueRequestId("token");
    const response = await postOrder(validOrder(requestId), { token: ACME_TOKEN });
    expect(response.status).toBe(201);
    expect(await countOrdersFor("acme", requestId)).toBe(1);
  });
});

describe("business rules answer 422 with every problem and store nothing", () => {
  const cases: { rule: string; change: Partial<OrderInput>; errors: string[] }[] = [
    {
      rule: "unknown customer",
      change: { customer_id: "C-5093" },
      errors: [rejectionMessage.unknownCustomer("C-5093")],
    },
    {
      rule: "unknown sku",
      change: { lines: [{ sku: "SKU-9757", quantity: 2, unit_price_cents: 1850 }] },
      errors: [rejectionMessage.unknownSku("SKU-9757")],
    },
    {
      rule: "out-of-stock sku",
      change: { lines: [{ sku: "SKU-7720", quantity: 1, unit_price_cents: 12900 }], total_cents: 12900 },
      errors: [rejectionMessage.outOfStock("SKU-7720")],
    },
    {
      rule: "channel not allowed",
      change: { channel: "web" },
      errors: [rejectionMessage.channelNotAllowed("web", "CUST-0005", ["partner"])],
    },
    {
      rule: "price mismatch",
      change: { lines: [{ sku: "SKU-5510", quantity: 2, unit_price_cents: 1900 }], total_cents: 3800 },
      errors: [rejectionMessage.priceMismatch("SKU-5510", 1900, 1850)],
    },
    { rule: "currency", change: { currency: "EUR" }, errors: [rejectionMessage.unsupportedCurrency("EUR", "USD")] },
    { rule: "total mismatch", change: { total_cents: 9999 }, errors: [rejectionMessage.totalMismatch(9999, 3700)] },
    {
      rule: "several problems at once",
      change: {
        customer_id: "CUST-0005",
        channel: "web",
        currency: "EUR",
        lines: [
          { sku: "SKU-9757", quantity: 1, unit_price_cents: 100 },
          { sku: "SKU-7720", quantity: 1, unit_price_cents: 12900 },
          { sku: "SKU-5510", quantity: 2, unit_price_cents: 1900 },
        ],
        total_cents: 5,
      },
      errors: [
        rejectionMessage.channelNotAllowed("web", "CUST-0005", ["partner"]),
        rejectionMessage.unsupportedCurrency("EUR", "USD"),
        rejectionMessage.unknownSku("SKU-9757"),
        rejectionMessage.outOfStock("SKU-7720"),
        rejectionMessage.priceMismatch("SKU-5510", 1900, 1850),
        rejectionMessage.totalMismatch(5, 16800),
      ],
    },
  ];

  it.each(cases)("$rule", async ({ change, errors }) => {
    const requestId = uniqueRequestId("rule");
    const response = await postOrder(validOrder(requestId, change));
    expect(response.status).toBe(422);
    expect(await readJson<ErrorBody>(response)).toEqual({
      code: "validation_failed",
      message: `order rejected: ${errors.length} problem(s)`,
      errors,
    });
    expect(await countOrdersFor("acme", requestId)).toBe(0);
  });

  it("does not burn the request_id: the corrected order is then accepted", async () => {
    const requestId = uniqueRequestId("fixed");
    expect((await postOrder(validOrder(requestId, { currency: "EUR" }))).status).toBe(422);
    const fixed = await postOrder(validOrder(requestId));
    expect(fixed.status).toBe(201);
    expect(await countOrdersFor("acme", requestId)).toBe(1);
  });
});
