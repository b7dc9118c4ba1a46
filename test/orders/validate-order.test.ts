import { describe, expect, it } from "vitest";
import type { OrderRequest } from "../../src/orders/intake-schemas";
import { buildReferenceData, referenceData } from "../../src/orders/reference-data";
import { findOrderProblems, linesTotal } from "../../src/orders/validate-order";
import { validOrder } from "../helpers/orders";

// Pure unit tests of the business rules: no HTTP, no D1.

/** The seed's curl example (helpers/orders.ts), with these fields changed. */
function order(overrides: Partial<OrderRequest> = {}): OrderRequest {
  return validOrder("unit-0001", overrides);
}

describe("linesTotal", () => {
  it("sums quantity x unit price over all lines as sent", () => {
    expect(
      linesTotal([
        { sku: "SKU-5510", quantity: 2, unit_price_cents: 1850 },
        { sku: "SKU-1180", quantity: 3, unit_price_cents: 1200 },
      ]),
    ).toBe(7300);
  });

  it("is 0 for no lines", () => {
    expect(linesTotal([])).toBe(0);
  });
});

describe("findOrderProblems", () => {
  it("finds nothing wrong with the seed's curl example", () => {
    expect(findOrderProblems(order(), referenceData)).toEqual([]);
  });

  it("accepts a multi-line order on an allowed channel", () => {
    const lines = [
      { sku: "SKU-1180", quantity: 1, unit_price_cents: 1200 },
      { sku: "SKU-6301", quantity: 2, unit_price_cents: 3900 },
    ];
    expect(
      findOrderProblems(order({ customer_id: "CUST-0003", channel: "store", lines, total_cents: 9000 }), referenceData),
    ).toEqual([]);
  });

  it("rejects an unknown customer (and does not also complain about its channel)", () => {
    expect(findOrderProblems(order({ customer_id: "C-5093", channel: "web" }), referenceData)).toEqual([
      "unknown customer C-5093",
    ]);
  });

  it("rejects an unknown sku", () => {
    const lines = [{ sku: "SKU-9757", quantity: 2, unit_price_cents: 1850 }];
    expect(findOrderProblems(order({ lines }), referenceData)).toEqual(["unknown sku SKU-9757"]);
  });

  it("rejects an out-of-stock sku", () => {
    const lines = [{ sku: "SKU-7720", quantity: 1, unit_price_cents: 12900 }];
    expect(findOrderProblems(order({ lines, total_cents: 12900 }), referenceData)).toEqual([
      "sku SKU-7720 is out of stock",
    ]);
  });

  it("rejects a channel the customer does not allow, listing the allowed ones", () => {
    expect(findOrderProblems(order({ channel: "web" }), referenceData)).toEqual([
      "channel web is not allowed for customer CUST-0005 (allowed: partner)",
    ]);
    expect(findOrderProblems(order({ customer_id: "CUST-0001", channel: "store" }), referenceData)).toEqual([
      "channel store is not allowed for customer CUST-0001 (allowed: web, mobile)",
    ]);
  });

  it("rejects a unit price that differs from the catalog", () => {
    const lines = [{ sku: "SKU-5510", quantity: 2, unit_price_cents: 1900 }];
    expect(findOrderProblems(order({ lines, total_cents: 3800 }), referenceData)).toEqual([
      "price mismatch for SKU-5510: sent 1900, expected 1850",
    ]);
  });

  it("rejects any currency but USD, case-sensitively", () => {
    expect(findOrderProblems(order({ currency: "EUR" }), referenceData)).toEqual([
      "unsupported currency EUR; only USD is accepted",
    ]);
    expect(findOrderProblems(order({ currency: "usd" }), referenceData)).toEqual([
      "unsupported currency usd; only USD is accepted",
    ]);
  });

  it("rejects a total that is not the sum of the lines", () => {
    expect(findOrderProblems(order({ total_cents: 9999 }), referenceData)).toEqual([
      "total mismatch: sent 9999, expected 3700",
    ]);
    expect(findOrderProblems(order({ total_cents: 3699 }), referenceData)).toEqual([
      "total mismatch: sent 3699, expected 3700",
    ]);
  });

  it("lists every problem of one order, in a stable order", () => {
    const problems = findOrderProblems(
      order({
        channel: "web",
        currency: "EUR",
        lines: [
          { sku: "SKU-9757", quantity: 1, unit_price_cents: 100 },
          { sku: "SKU-7720", quantity: 1, unit_price_cents: 1 },
          { sku: "SKU-5510", quantity: 2, unit_price_cents: 1900 },
        ],
        total_cents: 1,
      }),
      referenceData,
    );
    expect(problems).toEqual([
      "channel web is not allowed for customer CUST-0005 (allowed: partner)",
      "unsupported currency EUR; only USD is accepted",
      "unknown sku SKU-9757",
      "sku SKU-7720 is out of stock",
      "price mismatch for SKU-7720: sent 1, expected 12900",
      "price mismatch for SKU-5510: sent 1900, expected 1850",
      "total mismatch: sent 1, expected 3901",
    ]);
  });

  it("validates against the reference data it is given, not a global copy", () => {
    const custom = buildReferenceData(
      {
        skus: [
          { sku: "SKU-5510", name: "Socks", unit_price_cents: 2000, in_stock: false },
          { sku: "SKU-0001", name: "Other", unit_price_cents: 100, in_stock: true },
        ],
      },
      {
        customers: [
          { customer_id: "CUST-0005", name: "N", email: "n@example.com", tier: "partner", allowed_channels: ["web"] },
        ],
      },
    );
    expect(findOrderProblems(order(), custom)).toEqual([
      "channel partner is not allowed for customer CUST-0005 (allowed: web)",
      "sku SKU-5510 is out of stock",
      "price mismatch for SKU-5510: sent 1850, expected 2000",
    ]);
  });
});
