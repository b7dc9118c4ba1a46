import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import type { OrderRequest } from "../../src/orders/intake-schemas";
import { insertAuditEvent } from "../../src/store/audit-events";
import { storeIntakeOrder } from "../../src/store/intake-orders";
import { findOrdersWithoutOriginEvent } from "../../src/store/invariants";
import { simulateFailure } from "../../src/store/simulated-orders";
import { insertFreshOrder } from "../helpers/fresh-orders";
import { uniqueRequestId, validOrder, warmUp } from "../helpers/orders";
import { countOrders } from "../helpers/rows";

// The invariant: every order has the event that says where it came from
// (order_received, order_seeded or exception_simulated).

function freshAccount(): string {
  return `inv-${crypto.randomUUID().slice(0, 8)}`;
}

beforeAll(warmUp);

describe("findOrdersWithoutOriginEvent", () => {
  it("finds nothing among the seeded orders", async () => {
    expect(await findOrdersWithoutOriginEvent(env.DB, { account: "globex" })).toEqual([]);
  });

  it("finds nothing for orders written by the intake API and the demo helper", async () => {
    const account = freshAccount();
    const stored = await storeIntakeOrder(
      env.DB,
      { account, actor: "Ada" },
      validOrder(uniqueRequestId("origin")) as OrderRequest,
    );
    expect(stored.ok).toBe(true);
    await simulateFailure(env.DB, account, "Ada", new Date());
    expect(await countOrders(account)).toBe(2);
    expect(await findOrdersWithoutOriginEvent(env.DB, { account })).toEqual([]);
  });

  it("names an order written without its origin event, and only in its own account", async () => {
    const account = freshAccount();
    const orderId = await insertFreshOrder({ account, originEvent: false });
    expect(await findOrdersWithoutOriginEvent(env.DB, { account })).toEqual([{ account, order_id: orderId }]);
    expect(await findOrdersWithoutOriginEvent(env.DB, { account: freshAccount() })).toEqual([]);
    expect(await findOrdersWithoutOriginEvent(env.DB)).toContainEqual({ account, order_id: orderId });
  });

  it("does not count a later event as an origin", async () => {
    const account = freshAccount();
    const orderId = await insertFreshOrder({ account, originEvent: false });
    await insertAuditEvent(env.DB, {
      event_id: "prop_x:proposed",
      account,
      order_id: orderId,
      event_type: "proposal_created",
      actor_kind: "operator",
      actor: "Ada",
      reason: "later",
      proposal_id: null,
      state_before: null,
      state_after: null,
      created_at: "2026-01-01T00:00:00.000Z",
    }).run();
    expect(await findOrdersWithoutOriginEvent(env.DB, { account })).toEqual([{ account, order_id: orderId }]);
  });
});
