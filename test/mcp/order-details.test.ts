import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { OrderStatus } from "../../src/orders/tool-outputs";
import type { ProposalView } from "../../src/proposals/proposal-schemas";
import { insertFreshOrder } from "../helpers/fresh-orders";
import { CLIENT_GENERATIONS, type McpTestClient } from "../helpers/mcp-client";
import {
  ACME_APPROVER,
  ACME_OPERATOR,
  approve,
  auditLog,
  callError,
  callOk,
  details,
  ORDER_NOT_FOUND,
  propose,
} from "../helpers/ops";
import { postOrder, uniqueRequestId, validOrder } from "../helpers/orders";
import { customers, seed, seedAnchorMs } from "../helpers/seed-data";
import { ACME_TOKEN } from "../helpers/tokens";

// Over both protocol eras: the v1 client at 2025-11-25 and the v2 client at 2026-07-28.
describe.each(CLIENT_GENERATIONS)("$label", (generation) => {
  // The read-only operations tools that explain one order, over a real MCP
  // client: its evidence (get_order_details) and its audit log.

  let acme: McpTestClient;
  let anchorMs: number;

  beforeAll(async () => {
    acme = await generation.connect(ACME_TOKEN, "order-tools-acme");
    // Any tool call loads the seed; its anchor turns "minutes ago" into timestamps.
    await callOk<OrderStatus>(acme, "get_order_status", { order_id: "ORD-1001" });
    anchorMs = await seedAnchorMs();
  });
  afterAll(async () => {
    await acme.close();
  });

  const minutesBeforeAnchor = (minutes: number) => new Date(anchorMs - minutes * 60_000).toISOString();

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
        customer: {
          customer_id: "CUST-0004",
          name: "Jonas Becker",
          email: "jonas.becker@example.com",
          tier: "standard",
        },
        lines: order.lines,
        total_cents: 8000,
        currency: "USD",
        shipping_address: order.shipping_address,
        payment: {
          state: "declined",
          attempts: [
            {
              attempt_id: "PAY-1004-1",
              at: minutesBeforeAnchor(130),
              amount_cents: 8000,
              method: "visa ending 0341",
              outcome: "declined",
              decline_code: "insufficient_funds",
            },
            {
              attempt_id: "PAY-1004-2",
              at: minutesBeforeAnchor(100),
              amount_cents: 8000,
              method: "visa ending 0341",
              outcome: "declined",
              decline_code: "insufficient_funds",
            },
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
        timeline: order.timeline.map(({ at_minutes_ago, ...entry }) => ({
          ...entry,
          at: minutesBeforeAnchor(at_minutes_ago),
        })),
      });
      expect(result.exception?.age_minutes).toBeGreaterThanOrEqual(95);
      expect(result.timeline.map((t) => t.event)).toEqual([
        "order_placed",
        "inventory_held",
        "payment_declined",
        "payment_declined",
        "exception_opened",
      ]);
    });

    it("ORD-1017: the duplicate evidence names ORD-1016 and says what state the other order is in", async () => {
      const result = await details(acme, "ORD-1017");
      expect(result.duplicate).toEqual({
        of_order_id: "ORD-1016",
        signals: [
          "same customer",
          "same lines and total",
          "same card",
          "placed 2 minutes apart",
          "client retried after a checkout timeout",
        ],
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
      expect(result.customer).toEqual({
        customer_id: "CUST-0003",
        name: "Priya Raman",
        email: "priya.raman@example.com",
        tier: "platinum",
      });
      expect(result.exception).toMatchObject({
        exception_type: "fulfillment_hold_missing_sku",
        state: "active",
        sla_breached: false,
      });
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
      const orderId = await insertFreshOrder({
        exception: "fraud_review",
        exceptionState: "resolved",
        openedMinutesAgo: 600,
        slaMinutes: 30,
      });
      const result = await details(acme, orderId);
      expect(result.exception).toMatchObject({ state: "resolved", sla_minutes: 30, sla_breached: false });
      expect(result.exception?.age_minutes).toBeGreaterThanOrEqual(600);
    });

    it("an unknown order id is a tool error", async () => {
      expect(await callError(acme, "get_order_details", { order_id: "ORD-9999999" })).toBe(ORDER_NOT_FOUND);
    });
  });

  describe("get_order_audit_log", () => {
    it("a seeded order nobody touched has only the event that says where it came from", async () => {
      const log = await auditLog(acme, "ORD-1001");
      expect(log.events.map((e) => [e.event_id, e.event_type, e.actor_kind, e.actor])).toEqual([
        ["ORD-1001:seeded", "order_seeded", "system", "seed loader"],
      ]);
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
      expect(created?.reason).toBe(
        `escalate_to_human proposed (low risk): ${proposal.change_summary}. ${proposal.rationale}`,
      );
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
      expect(await callError(acme, "get_order_audit_log", { order_id: "ORD-9999999" })).toBe(ORDER_NOT_FOUND);
    });
  });
});
