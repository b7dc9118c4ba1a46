import { describe, expect, it } from "vitest";
import { referenceData } from "../../src/orders/reference-data";
import { RejectionReasonSchema, reasonOf } from "../../src/orders/rejections";
import { findOrderProblems } from "../../src/orders/validate-order";
import { breakOrder, drilled, drillFinding, drillReason } from "../../src/runs/drill";
import { generateOrders } from "../../src/synth/generators";

// A rejection drill breaks each chosen order in exactly one way, which the
// real validator then names, and reads any API's answer back for that way.

const orders = generateOrders("seeded", 99, 200, referenceData);

describe("breaking an order on purpose", () => {
  it.each(RejectionReasonSchema.options)("%s: the validator finds exactly that one problem", (reason) => {
    for (const [i, order] of orders.slice(0, 50).entries()) {
      const broken = breakOrder(order, reason, referenceData, (i + 0.5) / 50);
      expect(broken).not.toBeNull();
      const problems = findOrderProblems(broken as typeof order, referenceData);
      expect(problems.map(reasonOf)).toEqual([reason]);
      expect(broken?.request_id).toBe(order.request_id);
    }
  });

  it("chooses the same orders for the same seed, in about the asked shares", () => {
    const share = { out_of_stock: 0.1, total_mismatch: 0.05 };
    const picks = Array.from({ length: 20_000 }, (_, i) => drillReason(share, 7, i));
    expect(Array.from({ length: 20_000 }, (_, i) => drillReason(share, 7, i))).toEqual(picks);
    expect(picks.filter((r) => r === "out_of_stock").length / 20_000).toBeCloseTo(0.1, 1);
    expect(picks.filter((r) => r === "total_mismatch").length / 20_000).toBeCloseTo(0.05, 1);
    expect(picks.filter((r) => r === null).length / 20_000).toBeCloseTo(0.85, 1);
    expect(Array.from({ length: 100 }, (_, i) => drillReason(share, 8, i))).not.toEqual(picks.slice(0, 100));
  });

  it("an order outside the shares is sent as generated", () => {
    const order = orders[0];
    if (!order) throw new Error("no order");
    expect(drilled(order, {}, 7, 0, referenceData)).toEqual({ order, expect: null });
  });
});

describe("reading the answer back", () => {
  it("a 422 naming the reason is as expected; an acceptance or another reason is a finding", () => {
    expect(drillFinding("out_of_stock", 3, 422, ["sku SKU-7720 is out of stock"])).toBeNull();
    expect(drillFinding("out_of_stock", 3, 201, [])).toBe(
      "order 3 was broken for out_of_stock and should have been rejected for it, but the target answered 201",
    );
    expect(drillFinding("out_of_stock", 4, 422, ["unknown customer C-1"])).toBe(
      "order 4 was broken for out_of_stock and should have been rejected for it, but the target answered 422 unknown customer C-1",
    );
    expect(drillFinding("total_mismatch", 5, 500, ["total mismatch: sent 1, expected 2"])).not.toBeNull();
  });
});
