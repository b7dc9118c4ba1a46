import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AuditLog } from "../../src/orders/tool-outputs";
import { insertNotes } from "../helpers/audit";
import { insertFreshOrder } from "../helpers/fresh-orders";
import { CLIENT_GENERATIONS, type McpTestClient } from "../helpers/mcp-client";
import { callError, callOk, callTool } from "../helpers/ops";
import { ACME_TOKEN } from "../helpers/tokens";

// Over both protocol eras: the v1 client at 2025-11-25 and the v2 client at 2026-07-28.
describe.each(CLIENT_GENERATIONS)("$label", (generation) => {
  // get_order_audit_log pages through long logs: cursor in, next_cursor out.

  let acme: McpTestClient;
  beforeAll(async () => {
    acme = await generation.connect(ACME_TOKEN, "audit-paging");
  });
  afterAll(async () => {
    await acme.close();
  });

  /** An order with `count` events; every three share one timestamp, so pages must break ties. */
  async function orderWithEvents(count: number): Promise<{ orderId: string; eventIds: string[] }> {
    const orderId = await insertFreshOrder({ exception: null, originEvent: false });
    const times = Array.from({ length: count }, (_, i) =>
      new Date(Date.UTC(2026, 0, 1, 0, 0, Math.floor(i / 3))).toISOString(),
    );
    return { orderId, eventIds: await insertNotes(orderId, times) };
  }

  function page(orderId: string, args: Record<string, unknown> = {}): Promise<AuditLog> {
    return callOk<AuditLog>(acme, "get_order_audit_log", { order_id: orderId, ...args });
  }

  describe("get_order_audit_log paging", () => {
    it("walks the whole log in pages, oldest first, with no event twice or left out", async () => {
      const { orderId, eventIds } = await orderWithEvents(8);
      const seen: string[] = [];
      const sizes: number[] = [];
      let cursor: string | null | undefined;
      do {
        const log = await page(orderId, { limit: 3, ...(cursor ? { cursor } : {}) });
        expect(log.order_id).toBe(orderId);
        seen.push(...log.events.map((e) => e.event_id));
        sizes.push(log.events.length);
        cursor = log.next_cursor;
      } while (cursor);
      expect(sizes).toEqual([3, 3, 2]);
      expect(seen).toEqual(eventIds);
    });

    it("a log that fits in one page has no next cursor, and the default page holds 50", async () => {
      const short = await orderWithEvents(2);
      expect(await page(short.orderId)).toMatchObject({ next_cursor: null });
      const long = await orderWithEvents(51);
      const first = await page(long.orderId);
      expect(first.events).toHaveLength(50);
      expect(first.next_cursor).not.toBeNull();
      const rest = await page(long.orderId, { cursor: first.next_cursor });
      expect(rest.events.map((e) => e.event_id)).toEqual([long.eventIds[50]]);
      expect(rest.next_cursor).toBeNull();
    });

    it("a page ending exactly at the last event says there is no more", async () => {
      const { orderId } = await orderWithEvents(4);
      const log = await page(orderId, { limit: 4 });
      expect(log.events).toHaveLength(4);
      expect(log.next_cursor).toBeNull();
    });

    it("refuses a cursor it did not hand out, and a limit out of range", async () => {
      const { orderId } = await orderWithEvents(1);
      expect(await callError(acme, "get_order_audit_log", { order_id: orderId, cursor: "not-a-cursor" })).toMatch(
        /cursor is not a next_cursor/,
      );
      for (const limit of [0, 201, 2.5]) {
        const result = await callTool(acme, "get_order_audit_log", { order_id: orderId, limit });
        expect(result.isError).toBe(true);
      }
    });
  });
});
