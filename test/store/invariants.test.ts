import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { checkInvariants, describeViolations } from "../../src/store/invariants";
import { insertFreshOrder } from "../helpers/fresh-orders";
import { warmUp } from "../helpers/orders";

// The invariants hold on the seeded database and on everything the rest of the
// suite writes through the product; each check finds a row written around it.

describe("invariants", () => {
  it("hold on the database as the product leaves it", async () => {
    await warmUp();
    expect(describeViolations(await checkInvariants(env.DB))).toEqual([]);
  });

  it("an order written without its origin event is found", async () => {
    await insertFreshOrder({ orderId: "ORD-ORPHAN", originEvent: false });
    const report = await checkInvariants(env.DB);
    expect(report.orders_without_origin_event).toEqual([{ account: "acme", order_id: "ORD-ORPHAN" }]);
    expect(describeViolations(report)).toEqual([
      'orders_without_origin_event: 1 row(s), e.g. {"account":"acme","order_id":"ORD-ORPHAN"}',
    ]);
  });

  it("an application without its apply event, and an order version that skipped it, are found", async () => {
    await warmUp();
    // Raw SQL on purpose: the store only ever writes an application together with its apply event.
    await env.DB.prepare(
      "INSERT INTO applied_proposals (proposal_id, account, order_id, attempt_id, outcome, applied_at) VALUES ('prop_ghost', 'acme', 'ORD-1001', 'a', '{}', 'x')",
    ).run();
    const report = await checkInvariants(env.DB);
    expect(report.applications_without_one_apply_event).toEqual([
      { account: "acme", proposal_id: "prop_ghost", apply_events: 0 },
    ]);
    expect(report.versions_not_matching_applications).toEqual([
      { account: "acme", order_id: "ORD-1001", version: 1, applied: 1 },
    ]);
  });
});
