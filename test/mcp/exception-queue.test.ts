import { env } from "cloudflare:workers";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ExceptionSummary, OrderStatus } from "../../src/orders/tool-outputs";
import { insertFreshOrder } from "../helpers/fresh-orders";
import { connectClient } from "../helpers/mcp-client";
import { callError, callOk, ORDER_NOT_FOUND } from "../helpers/ops";
import { customers, seed, seedAnchorMs } from "../helpers/seed-data";
import { ACME_TOKEN, GLOBEX_TOKEN } from "../helpers/tokens";

// The read-only operations tools that find orders, over a real MCP client:
// an order's status, and the exception queue in priority order.

interface ExceptionList {
  count: number;
  exceptions: ExceptionSummary[];
}

let acme: Client;
let globex: Client;
let anchorMs: number;

beforeAll(async () => {
  acme = await connectClient(ACME_TOKEN, "order-tools-acme");
  globex = await connectClient(GLOBEX_TOKEN, "order-tools-globex");
  // Any tool call loads the seed; its anchor turns "minutes ago" into timestamps.
  await callOk<OrderStatus>(acme, "get_order_status", { order_id: "ORD-1001" });
  anchorMs = await seedAnchorMs();
});
afterAll(async () => {
  await Promise.all([acme.close(), globex.close()]);
});

const minutesBeforeAnchor = (minutes: number) => new Date(anchorMs - minutes * 60_000).toISOString();

describe("get_order_status", () => {
  it("returns exactly order_id, status and version, nothing about the customer", async () => {
    const status = await callOk<OrderStatus>(acme, "get_order_status", { order_id: "ORD-1004" });
    expect(status).toEqual({ order_id: "ORD-1004", status: "payment_failed", version: 1 });
    expect(Object.keys(status).sort()).toEqual(["order_id", "status", "version"]);
  });

  it.each([
    ["ORD-1001", "delivered"],
    ["ORD-1014", "partially_shipped"],
    ["ORD-1017", "pending"],
  ])("%s is %s at version 1", async (orderId, status) => {
    expect(await callOk<OrderStatus>(acme, "get_order_status", { order_id: orderId })).toEqual({
      order_id: orderId,
      status,
      version: 1,
    });
  });

  it("an unknown order id is a tool error", async () => {
    expect(await callError(acme, "get_order_status", { order_id: "ORD-9999999" })).toBe(ORDER_NOT_FOUND);
  });
});

describe("list_order_exceptions", () => {
  let list: ExceptionList;
  let oldP1: string;
  let lowP4: string;
  let tieA: string;
  let tieB: string;
  let resolvedOne: string;
  let escalatedOne: string;
  let noException: string;
  let globexActive: string;

  beforeAll(async () => {
    oldP1 = await insertFreshOrder({ exception: "fraud_review", priority: "P1", openedMinutesAgo: 5000 });
    lowP4 = await insertFreshOrder({
      exception: "fulfillment_hold_missing_sku",
      priority: "P4",
      openedMinutesAgo: 9000,
    });
    const tieAt = new Date(Date.now() - 45 * 60_000).toISOString();
    const tie = [
      await insertFreshOrder({ exception: "fraud_review", priority: "P3", openedAt: tieAt }),
      await insertFreshOrder({ exception: "fraud_review", priority: "P3", openedAt: tieAt }),
    ].sort();
    [tieA = "", tieB = ""] = tie;
    resolvedOne = await insertFreshOrder({
      exception: "fraud_review",
      exceptionState: "resolved",
      priority: "P1",
      openedMinutesAgo: 9999,
    });
    escalatedOne = await insertFreshOrder({
      exception: "fraud_review",
      exceptionState: "escalated",
      priority: "P1",
      openedMinutesAgo: 9999,
    });
    noException = await insertFreshOrder({ exception: null });
    globexActive = await insertFreshOrder({
      account: "globex",
      exception: "fraud_review",
      priority: "P1",
      openedMinutesAgo: 99999,
    });
    list = await callOk<ExceptionList>(acme, "list_order_exceptions");
  });

  it("count is the number of entries", () => {
    expect(list.count).toBe(list.exceptions.length);
  });

  it("lists exactly the account's orders whose exception is active", async () => {
    const { results } = await env.DB.prepare(
      "SELECT order_id FROM orders WHERE account = 'acme' AND exception_state = 'active'",
    ).all<{ order_id: string }>();
    expect(list.exceptions.map((e) => e.order_id).sort()).toEqual(results.map((r) => r.order_id).sort());
    const ids = list.exceptions.map((e) => e.order_id);
    for (const absent of [
      resolvedOne,
      escalatedOne,
      noException,
      globexActive,
      "ORD-2003",
      "ORD-2005",
      "ORD-1001",
      "ORD-1016",
    ])
      expect(ids).not.toContain(absent);
  });

  it("is sorted by priority (P1 first), then oldest first, then by order id", () => {
    const ids = list.exceptions.map((e) => e.order_id);
    expect(ids).toEqual([
      oldP1,
      "ORD-1004",
      "ORD-1011",
      "ORD-1014",
      "ORD-1008",
      "ORD-1017",
      tieA,
      tieB,
      "ORD-1020",
      lowP4,
    ]);
    const rank = (p: string) => Number(p.slice(1));
    list.exceptions.slice(1).forEach((entry, i) => {
      const previous = list.exceptions[i];
      if (!previous) throw new Error("unreachable");
      expect(rank(previous.priority)).toBeLessThanOrEqual(rank(entry.priority));
      if (previous.priority === entry.priority) expect(previous.age_minutes).toBeGreaterThanOrEqual(entry.age_minutes);
    });
  });

  it("every entry has exactly the documented fields", () => {
    for (const entry of list.exceptions) {
      expect(Object.keys(entry).sort()).toEqual(
        [
          "age_minutes",
          "assigned_team",
          "created_at",
          "currency",
          "customer_name",
          "exception_type",
          "order_id",
          "order_value_cents",
          "priority",
          "sla_breached",
          "sla_minutes",
          "summary",
        ].sort(),
      );
    }
  });

  it("sla_breached is exactly age_minutes > sla_minutes, and both values occur", () => {
    for (const entry of list.exceptions)
      expect(entry.sla_breached, entry.order_id).toBe(entry.age_minutes > entry.sla_minutes);
    expect(list.exceptions.some((e) => e.sla_breached)).toBe(true);
    expect(list.exceptions.some((e) => !e.sla_breached)).toBe(true);
  });

  it("seeded entries carry the seed's values: customer name, type, team, SLA, value, summary and age", () => {
    for (const orderId of ["ORD-1004", "ORD-1008", "ORD-1011", "ORD-1014", "ORD-1017", "ORD-1020"]) {
      const order = seed(orderId);
      const entry = list.exceptions.find((e) => e.order_id === orderId);
      const exception = order.exception;
      if (!entry || !exception) throw new Error(`${orderId} missing from the list or the seed`);
      expect(entry).toMatchObject({
        customer_name: customers.get(order.customer_id)?.name,
        created_at: minutesBeforeAnchor(order.created_minutes_ago),
        exception_type: exception.type,
        priority: exception.priority,
        assigned_team: exception.assigned_team,
        sla_minutes: exception.sla_minutes,
        order_value_cents: order.total_cents,
        currency: "USD",
        summary: exception.summary,
      });
      // Ages count from the seed's anchor (the load minute) to now.
      const expectedAge = Math.floor((Date.now() - (anchorMs - exception.opened_minutes_ago * 60_000)) / 60_000);
      expect(Math.abs(entry.age_minutes - expectedAge)).toBeLessThanOrEqual(1);
    }
    expect(list.exceptions.find((e) => e.order_id === "ORD-1004")).toMatchObject({
      customer_name: "Jonas Becker",
      sla_breached: true,
      priority: "P1",
    });
    expect(list.exceptions.find((e) => e.order_id === "ORD-1008")).toMatchObject({
      customer_name: "Priya Raman",
      sla_breached: false,
    });
  });

  it("within one priority, an exception opened 45 s earlier comes first even at the same minute of age", async () => {
    const base = Date.now() - 20 * 60_000;
    const suffix = crypto.randomUUID().slice(0, 8).toUpperCase();
    const older = await insertFreshOrder({
      orderId: `TST-Z${suffix}`,
      exception: "fraud_review",
      priority: "P4",
      openedAt: new Date(base - 50_000).toISOString(),
    });
    const newer = await insertFreshOrder({
      orderId: `TST-A${suffix}`,
      exception: "fraud_review",
      priority: "P4",
      openedAt: new Date(base - 5_000).toISOString(),
    });
    const now = await callOk<ExceptionList>(acme, "list_order_exceptions");
    const ids = now.exceptions.map((e) => e.order_id);
    expect(ids.indexOf(older)).toBeGreaterThanOrEqual(0);
    expect(ids.indexOf(newer)).toBeGreaterThanOrEqual(0);
    expect(ids.indexOf(older)).toBeLessThan(ids.indexOf(newer));
  });

  it("another account sees only its own exceptions", async () => {
    const other = await callOk<ExceptionList>(globex, "list_order_exceptions");
    expect(other.exceptions.map((e) => e.order_id)).toEqual([globexActive, "ORD-2003", "ORD-2005"]);
    expect(other.count).toBe(3);
  });
});
