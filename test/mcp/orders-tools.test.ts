import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { env } from "cloudflare:workers";
import { SEED_VERSION } from "../../src/store/seed-loader";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ProposalView } from "../../src/proposals/schemas";
import type { ExceptionSummary, OrderStatus } from "../../src/orders/views";
import customersJson from "../../seed/customers.json";
import operationsJson from "../../seed/operations.json";
import { ACME_TOKEN, connectClient, GLOBEX_TOKEN } from "../helpers/mcp-client";
import { ACME_APPROVER, ACME_OPERATOR, approve, auditLog, callError, callOk, details, propose } from "../helpers/ops";
import { insertFreshOrder } from "../helpers/fresh-orders";
import { postOrder, uniqueRequestId, validOrder } from "../helpers/orders";

// The read-only operations tools over a real MCP client: status, the exception
// queue, an order's evidence and its audit log.

const NOT_FOUND = "order not found; list_order_exceptions shows the orders you can act on";

interface ExceptionList {
  count: number;
  exceptions: ExceptionSummary[];
}

interface SeedCustomer {
  customer_id: string;
  name: string;
  email: string;
  tier: string;
}

const customers = new Map((customersJson.customers as SeedCustomer[]).map((c) => [c.customer_id, c]));
const seedById = new Map(operationsJson.orders.map((o) => [o.order_id, o]));

function seed(orderId: string) {
  const order = seedById.get(orderId);
  if (!order) throw new Error(`${orderId} is not in seed/operations.json`);
  return order;
}

let acme: Client;
let globex: Client;
let anchorMs: number;

beforeAll(async () => {
  acme = await connectClient(ACME_TOKEN, "order-tools-acme");
  globex = await connectClient(GLOBEX_TOKEN, "order-tools-globex");
  // Any tool call loads the seed; its anchor turns "minutes ago" into timestamps.
  await callOk<OrderStatus>(acme, "get_order_status", { order_id: "ORD-1001" });
  const anchor = await env.DB.prepare("SELECT anchored_at FROM seed_runs WHERE seed_version = ?").bind(SEED_VERSION).first<{ anchored_at: string }>();
  if (!anchor) throw new Error("the seed was not loaded");
  anchorMs = Date.parse(anchor.anchored_at);
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
    expect(await callOk<OrderStatus>(acme, "get_order_status", { order_id: orderId })).toEqual({ order_id: orderId, status, version: 1 });
  });

  it("an unknown order id is a tool error", async () => {
    expect(await callError(acme, "get_order_status", { order_id: "ORD-9999999" })).toBe(NOT_FOUND);
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
    lowP4 = await insertFreshOrder({ exception: "fulfillment_hold_missing_sku", priority: "P4", openedMinutesAgo: 9000 });
    const tieAt = new Date(Date.now() - 45 * 60_000).toISOString();
    const tie = [await insertFreshOrder({ exception: "fraud_review", priority: "P3", openedAt: tieAt }), await insertFreshOrder({ exception: "fraud_review", priority: "P3", openedAt: tieAt })].sort();
    [tieA = "", tieB = ""] = tie;
    resolvedOne = await insertFreshOrder({ exception: "fraud_review", exceptionState: "resolved", priority: "P1", openedMinutesAgo: 9999 });
    escalatedOne = await insertFreshOrder({ exception: "fraud_review", exceptionState: "escalated", priority: "P1", openedMinutesAgo: 9999 });
    noException = await insertFreshOrder({ exception: null });
    globexActive = await insertFreshOrder({ account: "globex", exception: "fraud_review", priority: "P1", openedMinutesAgo: 99999 });
    list = await callOk<ExceptionList>(acme, "list_order_exceptions");
  });

  it("count is the number of entries", () => {
    expect(list.count).toBe(list.exceptions.length);
  });

  it("lists exactly the account's orders whose exception is active", async () => {
    const { results } = await env.DB.prepare("SELECT order_id FROM orders WHERE account = 'acme' AND exception_state = 'active'").all<{ order_id: string }>();
    expect(list.exceptions.map((e) => e.order_id).sort()).toEqual(results.map((r) => r.order_id).sort());
    const ids = list.exceptions.map((e) => e.order_id);
    for (const absent of [resolvedOne, escalatedOne, noException, globexActive, "ORD-2003", "ORD-2005", "ORD-1001", "ORD-1016"]) expect(ids).not.toContain(absent);
  });

  it("is sorted by priority (P1 first), then oldest first, then by order id", () => {
    const ids = list.exceptions.map((e) => e.order_id);
    expect(ids).toEqual([oldP1, "ORD-1004", "ORD-1011", "ORD-1014", "ORD-1008", "ORD-1017", tieA, tieB, "ORD-1020", lowP4]);
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
        ["age_minutes", "assigned_team", "created_at", "currency", "customer_name", "exception_type", "order_id", "order_value_cents", "priority", "sla_breached", "sla_minutes", "summary"].sort(),
      );
    }
  });

  it("sla_breached is exactly age_minutes > sla_minutes, and both values occur", () => {
    for (const entry of list.exceptions) expect(entry.sla_breached, entry.order_id).toBe(entry.age_minutes > entry.sla_minutes);
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
    expect(list.exceptions.find((e) => e.order_id === "ORD-1004")).toMatchObject({ customer_name: "Jonas Becker", sla_breached: true, priority: "P1" });
    expect(list.exceptions.find((e) => e.order_id === "ORD-1008")).toMatchObject({ customer_name: "Priya Raman", sla_breached: false });
  });

  it("within one priority, an exception opened 45 s earlier comes first even at the same minute of age", async () => {
    const base = Date.now() - 20 * 60_000;
    const suffix = crypto.randomUUID().slice(0, 8).toUpperCase();
    const older = await insertFreshOrder({ orderId: `TST-Z${suffix}`, exception: "fraud_review", priority: "P4", openedAt: new Date(base - 50_000).toISOString() });
    const newer = await insertFreshOrder({ orderId: `TST-A${suffix}`, exception: "fraud_review", priority: "P4", openedAt: new Date(base - 5_000).toISOString() });
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

describe("get_order_details", () => {
  it("ORD-1004: customer, lines, address, both declined payment attempts, held stock, fulfillment, exception and timeline", async () => {
    const order = seed("ORD-1004");
    const result = await details(acme, "ORD-1004");
    expect(result).toEqual({
      order_id: "ORD-1004",
      status: "payment_failed",
      version: 1,
      channel: "store",
      created_at: minutesBeforeAnchor(130),
      customer: { customer_id: "CUST-0004", name: "Jonas Becker", email: "jonas.becker@example.com", tier: "standard" },
      lines: order.lines,
      total_cents: 8000,
      currency: "USD",
      shipping_address: order.shipping_address,
      payment: {
        state: "declined",
        attempts: [
          { attempt_id: "PAY-1004-1", at: minutesBeforeAnchor(130), amount_cents: 8000, method: "visa ending 0341", outcome: "declined", decline_code: "insufficient_funds" },
          { attempt_id: "PAY-1004-2", at: minutesBeforeAnchor(100), amount_cents: 8000, method: "visa ending 0341", outcome: "declined", decline_code: "insufficient_funds" },
        ],
      },
      inventory: {
        allocations: [
          { sku: "SKU-4415", quantity: 2, warehouse: "ATL-2", state: "held" },
          { sku: "SKU-1180", quantity: 1, warehouse: "ATL-2", state: "held" },
        ],
      },
      fulfillment: { state: "blocked", carrier: null, tracking: null, last_event: "waiting for payment" },
      duplicate: null,
      exception: {
        exception_type: "payment_declined_inventory_held",
        state: "active",
        priority: "P1",
        assigned_team: "Payments Ops",
        age_minutes: result.exception?.age_minutes,
        sla_minutes: 60,
        sla_breached: true,
        summary: "Card declined twice (insufficient_funds); 3 units still held in ATL-2.",
      },
      timeline: order.timeline.map(({ at_minutes_ago, ...entry }) => ({ ...entry, at: minutesBeforeAnchor(at_minutes_ago) })),
    });
    expect(result.exception?.age_minutes).toBeGreaterThanOrEqual(95);
    expect(result.timeline.map((t) => t.event)).toEqual(["order_placed", "inventory_held", "payment_declined", "payment_declined", "exception_opened"]);
  });

  it("ORD-1017: the duplicate evidence names ORD-1016 and says what state the other order is in", async () => {
    const result = await details(acme, "ORD-1017");
    expect(result.duplicate).toEqual({
      of_order_id: "ORD-1016",
      signals: ["same customer", "same lines and total", "same card", "placed 2 minutes apart", "client retried after a checkout timeout"],
      other_order_status: "pending",
    });
    expect(result.exception?.exception_type).toBe("duplicate_order");
    expect(result.payment?.state).toBe("captured");
    expect(result.customer.name).toBe(customers.get("CUST-0004")?.name);
    expect(result.inventory?.allocations.map((a) => a.state)).toEqual(["allocated", "allocated"]);
  });

  it("ORD-1008: the missing SKU shows in the allocations", async () => {
    const result = await details(acme, "ORD-1008");
    expect(result.inventory?.allocations.find((a) => a.state === "missing")).toBeDefined();
    expect(result.customer).toEqual({ customer_id: "CUST-0003", name: "Priya Raman", email: "priya.raman@example.com", tier: "platinum" });
    expect(result.exception).toMatchObject({ exception_type: "fulfillment_hold_missing_sku", state: "active", sla_breached: false });
  });

  it("an order without an exception has exception null and no duplicate", async () => {
    const result = await details(acme, "ORD-1001");
    expect(result.exception).toBeNull();
    expect(result.duplicate).toBeNull();
    expect(result.status).toBe("delivered");
    expect(result.customer.name).toBe("Maya Lindqvist");
  });

  it("an intake order (posted to /api/orders) has no evidence: payment, inventory, fulfillment and address are null", async () => {
    const response = await postOrder(validOrder(uniqueRequestId("details")));
    expect(response.status).toBe(201);
    const { order_id } = (await response.json()) as { order_id: string };
    const result = await details(acme, order_id);
    expect(result).toMatchObject({
      order_id,
      status: "accepted",
      version: 1,
      channel: "partner",
      customer: { customer_id: "CUST-0005", name: "Northwind Outfitters" },
      shipping_address: null,
      payment: null,
      inventory: null,
      fulfillment: null,
      duplicate: null,
      exception: null,
      timeline: [],
    });
  });

  it("a resolved exception is never reported as breaching its SLA, however old", async () => {
    const orderId = await insertFreshOrder({ exception: "fraud_review", exceptionState: "resolved", openedMinutesAgo: 600, slaMinutes: 30 });
    const result = await details(acme, orderId);
    expect(result.exception).toMatchObject({ state: "resolved", sla_minutes: 30, sla_breached: false });
    expect(result.exception?.age_minutes).toBeGreaterThanOrEqual(600);
  });

  it("an unknown order id is a tool error", async () => {
    expect(await callError(acme, "get_order_details", { order_id: "ORD-9999999" })).toBe(NOT_FOUND);
  });
});

describe("get_order_audit_log", () => {
  it("a seeded order nobody touched has only the event that says where it came from", async () => {
    const log = await auditLog(acme, "ORD-1001");
    expect(log.events.map((e) => [e.event_id, e.event_type, e.actor_kind, e.actor])).toEqual([["ORD-1001:seeded", "order_seeded", "system", "seed loader"]]);
    expect(log.events[0]?.state_after).toMatchObject({ status: "delivered", version: 1 });
  });

  it("records who proposed and who approved, oldest first, with the state before", async () => {
    const orderId = await insertFreshOrder({ exception: "fraud_review" });
    const proposal: ProposalView = await propose(acme, orderId);
    await approve(proposal.proposal_id, "fraud team asked for a human");
    const log = await auditLog(acme, orderId);
    expect(log.order_id).toBe(orderId);
    expect(log.events.map((e) => e.event_type)).toEqual(["order_seeded", "proposal_created", "proposal_approved"]);
    const [, created, approved] = log.events;
    expect(created).toMatchObject({
      event_id: `${proposal.proposal_id}:proposed`,
      at: proposal.created_at,
      actor_kind: "operator",
      actor: ACME_OPERATOR,
      proposal_id: proposal.proposal_id,
      state_before: {
        status: "on_hold",
        version: 1,
        exception: { type: "fraud_review", state: "active", team: "Trust & Safety" },
        payment: "authorized",
      },
      state_after: null,
    });
    expect(created?.reason).toBe(`escalate_to_human proposed (low risk): ${proposal.change_summary}. ${proposal.rationale}`);
    expect(approved).toMatchObject({
      event_id: `${proposal.proposal_id}:approved`,
      actor_kind: "approver",
      actor: ACME_APPROVER,
      reason: "fraud team asked for a human",
      proposal_id: proposal.proposal_id,
      state_before: null,
      state_after: null,
    });
    expect(Date.parse(approved?.at ?? "")).toBeGreaterThanOrEqual(Date.parse(created?.at ?? ""));
  });

  it("an unknown order id is a tool error", async () => {
    expect(await callError(acme, "get_order_audit_log", { order_id: "ORD-9999999" })).toBe(NOT_FOUND);
  });
});
