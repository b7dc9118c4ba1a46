import { env } from "cloudflare:workers";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker-provider.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/config";
import { SCOPES } from "../../src/core/scopes";
import type { AccountCalls, AccountToolContext, AccountTraffic } from "../../src/mcp/account-context";
import { createMcpServer } from "../../src/mcp/server";
import { orderTools } from "../../src/mcp/tools/orders.tools";
import type { AccountOrders } from "../../src/orders/port";
import type { ExceptionSummary, OrderDetails, SimulatedFailure } from "../../src/orders/tool-outputs";
import { CLIENT_GENERATIONS, type McpTestClient } from "../helpers/mcp-client";
import { ACME_OPERATOR, approve, auditLog, callOk, confirm, details, propose } from "../helpers/ops";
import { postOrder, validOrder } from "../helpers/orders";
import { ACME_TOKEN, GLOBEX_TOKEN } from "../helpers/tokens";
import { structuredOf, type ToolCallResult } from "../helpers/tool-results";

// Over both protocol eras: the v1 client at 2025-11-25 and the v2 client at 2026-07-28.
describe.each(CLIENT_GENERATIONS)("$label", (generation) => {
  // simulate_new_failure: the demo helper that adds one fresh stuck order.

  /** The rotation in src/order-api/operations-store.ts: the order number modulo 4 picks the type. */
  const ROTATION = [
    "payment_declined_inventory_held",
    "fulfillment_hold_missing_sku",
    "fulfillment_incomplete_carrier_timeout",
    "fraud_review",
  ];

  let acme: McpTestClient;
  let globex: McpTestClient;

  beforeAll(async () => {
    acme = await generation.connect(ACME_TOKEN, "simulate-acme");
    globex = await generation.connect(GLOBEX_TOKEN, "simulate-globex");
  });
  afterAll(async () => {
    await Promise.all([acme.close(), globex.close()]);
  });

  const simulate = (client: McpTestClient = acme) => callOk<SimulatedFailure>(client, "simulate_new_failure");
  const exceptionList = (client: McpTestClient = acme) =>
    callOk<{ count: number; exceptions: ExceptionSummary[] }>(client, "list_order_exceptions");
  const numberOf = (orderId: string) => Number(/^ORD-(\d+)$/.exec(orderId)?.[1] ?? Number.NaN);

  /** Numbers are per account: the highest numeric operations order id of that account. */
  async function highestOrderNumber(account = "acme"): Promise<number> {
    const { results } = await env.DB.prepare("SELECT order_id FROM orders WHERE account = ? AND source = 'operations'")
      .bind(account)
      .all<{ order_id: string }>();
    return Math.max(...results.map((r) => numberOf(r.order_id)).filter((n) => Number.isFinite(n)));
  }

  /** The account's counter, created by its first simulate_new_failure. */
  async function nextSequenceValue(account = "acme"): Promise<number> {
    const row = await env.DB.prepare("SELECT next_value FROM order_number_sequence WHERE name = ?")
      .bind(`public_order:${account}`)
      .first<{ next_value: number }>();
    return row?.next_value ?? (await highestOrderNumber(account)) + 1;
  }

  describe("simulate_new_failure", () => {
    it("adds exactly one active exception, numbered after every existing order, with an exception_simulated audit event", async () => {
      const before = await exceptionList();
      const highest = await highestOrderNumber();
      const created = await simulate();

      expect(Object.keys(created).sort()).toEqual(["exception_type", "order_id", "priority", "summary", "version"]);
      expect(created.order_id).toMatch(/^ORD-\d+$/);
      expect(numberOf(created.order_id)).toBe(highest + 1);
      expect(created.version).toBe(1);
      expect(created.exception_type).toBe(ROTATION[numberOf(created.order_id) % 4]);
      expect(created.summary.startsWith("Simulated: ")).toBe(true);

      const after = await exceptionList();
      expect(after.count).toBe(before.count + 1);
      const entry = after.exceptions.find((e) => e.order_id === created.order_id);
      expect(entry).toMatchObject({
        exception_type: created.exception_type,
        priority: created.priority,
        summary: created.summary,
        age_minutes: 0,
        sla_breached: false,
      });
      expect(
        after.exceptions
          .map((e) => e.order_id)
          .filter((id) => id !== created.order_id)
          .sort(),
      ).toEqual(before.exceptions.map((e) => e.order_id).sort());

      const log = await auditLog(acme, created.order_id);
      expect(log.events).toHaveLength(1);
      expect(log.events[0]).toMatchObject({
        event_id: `${created.order_id}:simulated`,
        event_type: "exception_simulated",
        actor_kind: "operator",
        actor: ACME_OPERATOR,
        reason: "simulate_new_failure demo helper",
        proposal_id: null,
        state_before: null,
        state_after: { version: 1, exception: { type: created.exception_type, state: "active" } },
      });
    });

    it("the new order is the caller's alone and has full evidence", async () => {
      const created = await simulate();
      const order: OrderDetails = await details(acme, created.order_id);
      expect(order).toMatchObject({
        order_id: created.order_id,
        version: 1,
        exception: { exception_type: created.exception_type, state: "active", priority: created.priority },
      });
      expect(order.payment?.attempts.length).toBeGreaterThan(0);
      expect(order.inventory?.allocations.length).toBeGreaterThan(0);
      expect(order.timeline.map((t) => t.event)).toEqual(["order_placed", "exception_opened"]);
      expect(
        (
          (await globex.callTool({
            name: "get_order_status",
            arguments: { order_id: created.order_id },
          })) as ToolCallResult
        ).isError,
      ).toBe(true);
      const row = await env.DB.prepare("SELECT account, source FROM orders WHERE order_id = ?")
        .bind(created.order_id)
        .all<{ account: string; source: string }>();
      expect(row.results).toEqual([{ account: "acme", source: "operations" }]);
    });

    it("the types rotate through the four simulated kinds", async () => {
      const created = [await simulate(), await simulate(), await simulate(), await simulate()];
      expect(new Set(created.map((c) => c.exception_type))).toEqual(new Set(ROTATION));
      for (const c of created) expect(c.exception_type).toBe(ROTATION[numberOf(c.order_id) % 4]);
    });

    it("concurrent calls get distinct, consecutive numbers within each account", async () => {
      const firstAcme = await nextSequenceValue("acme");
      const firstGlobex = await nextSequenceValue("globex");
      const before = (await exceptionList()).count;
      const results = await Promise.all(Array.from({ length: 12 }, (_, i) => simulate(i % 3 === 0 ? globex : acme)));
      const acmeNumbers = results
        .filter((_, i) => i % 3 !== 0)
        .map((r) => numberOf(r.order_id))
        .sort((a, b) => a - b);
      const globexNumbers = results
        .filter((_, i) => i % 3 === 0)
        .map((r) => numberOf(r.order_id))
        .sort((a, b) => a - b);
      expect(acmeNumbers).toEqual(Array.from({ length: 8 }, (_, i) => firstAcme + i));
      expect(globexNumbers).toEqual(Array.from({ length: 4 }, (_, i) => firstGlobex + i));
      expect((await exceptionList()).count).toBe(before + 8);
    });

    it("one account's simulations do not move another account's numbers", async () => {
      const globexNext = await nextSequenceValue("globex");
      await simulate(acme);
      await simulate(acme);
      const created = await simulate(globex);
      expect(numberOf(created.order_id)).toBe(globexNext);
    });

    it("a simulated missing-SKU order goes through the whole approval flow", async () => {
      let created = await simulate();
      for (let i = 0; i < 4 && created.exception_type !== "fulfillment_hold_missing_sku"; i++)
        created = await simulate();
      expect(created.exception_type).toBe("fulfillment_hold_missing_sku");
      const proposal = await propose(acme, created.order_id);
      expect(proposal).toMatchObject({ action: "notify_customer_backorder", risk: "medium" });
      await approve(proposal.proposal_id);
      const result = await confirm(acme, proposal.proposal_id);
      expect(result.status).toBe("applied");
      const order = await details(acme, created.order_id);
      expect(order.status).toBe("backordered");
      expect(order.inventory?.allocations.map((a) => a.state)).toContain("backordered");
      expect((await exceptionList()).exceptions.map((e) => e.order_id)).not.toContain(created.order_id);
    });

    // Intake order ids are `ORD-` + the first 8 characters of the request_id, so an
    // intake order with request_id "1234" holds ORD-1234, inside the space
    // simulate_new_failure numbers from. The number must be skipped, not collided
    // with (a UNIQUE constraint error).
    it("skips a public number an intake order already holds in the account", async () => {
      const next = await nextSequenceValue();
      const intake = await postOrder(validOrder(String(next)));
      expect(intake.status).toBe(201);
      expect(((await intake.json()) as { order_id: string }).order_id).toBe(`ORD-${next}`);
      const intakeRow = await env.DB.prepare("SELECT * FROM orders WHERE account = 'acme' AND order_id = ?")
        .bind(`ORD-${next}`)
        .first();

      const result = await acme.callTool({ name: "simulate_new_failure", arguments: {} });
      const created = structuredOf<SimulatedFailure>(result);
      expect(numberOf(created.order_id)).toBeGreaterThan(next);
      expect(
        await env.DB.prepare("SELECT * FROM orders WHERE account = 'acme' AND order_id = ?")
          .bind(`ORD-${next}`)
          .first(),
      ).toEqual(intakeRow);
    });
  });

  // ------------------------------------------------ DEMO_TOOLS off: not offered

  function unused<T extends object>(name: string): T {
    return new Proxy({} as T, {
      get(_target, property) {
        throw new Error(`${name}.${String(property)} is not used by this test`);
      },
    });
  }

  const SIMULATED: SimulatedFailure = {
    order_id: "ORD-424242",
    exception_type: "fraud_review",
    priority: "P1",
    summary: "fake",
    version: 1,
  };

  function fakeContext(vars: Record<string, string>): AccountToolContext {
    const config = parseConfig({ ENVIRONMENT: "development", ...vars });
    if (!config.ok) throw new Error(config.error.message);
    return {
      account: "acme",
      operator: "In-memory Operator",
      scopes: [...SCOPES],
      config: config.value,
      traffic: unused<AccountTraffic>("traffic"),
      orders: { ...unused<AccountOrders>("orders"), account: "acme", simulateFailure: async () => SIMULATED },
      agent: unused<AccountCalls>("agent"),
    };
  }

  async function inMemoryClient(context: AccountToolContext): Promise<Client> {
    const server = createMcpServer(context);
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    await server.connect(serverTransport);
    const client = new Client(
      { name: "in-memory", version: "1.0.0" },
      { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() },
    );
    await client.connect(clientTransport);
    return client;
  }

  describe("DEMO_TOOLS", () => {
    const orderToolNames = orderTools.map((t) => t.name);

    it.each([["off"], ["false"], ["0"], [undefined]])(
      "DEMO_TOOLS=%s: simulate_new_failure is not listed and cannot be called",
      async (value) => {
        const client = await inMemoryClient(fakeContext(value === undefined ? {} : { DEMO_TOOLS: value }));
        try {
          const names = (await client.listTools()).tools.map((t) => t.name);
          expect(names).not.toContain("simulate_new_failure");
          expect(names).toEqual(expect.arrayContaining(orderToolNames.filter((n) => n !== "simulate_new_failure")));
          // An unknown tool is a JSON-RPC invalid-params error, exactly as for a name that never existed.
          await expect(client.callTool({ name: "simulate_new_failure", arguments: {} })).rejects.toThrow(
            "MCP error -32602: Tool simulate_new_failure not found",
          );
        } finally {
          await client.close();
        }
      },
    );

    it("DEMO_TOOLS=on (control): listed, and it calls the account's orders", async () => {
      const client = await inMemoryClient(fakeContext({ DEMO_TOOLS: "on" }));
      try {
        expect((await client.listTools()).tools.map((t) => t.name)).toContain("simulate_new_failure");
        const call = await client.callTool({ name: "simulate_new_failure", arguments: {} });
        expect(call.structuredContent).toEqual(SIMULATED);
      } finally {
        await client.close();
      }
    });

    it("the dev Worker (.dev.vars sets DEMO_TOOLS=on) lists it", async () => {
      expect((await acme.listTools()).tools.map((t) => (t as { name: string }).name)).toContain("simulate_new_failure");
    });
  });
});
