import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { loadSeed, REAL_ORDERS_REFUSAL } from "../../src/store/seed-loader";
import { fetchWithEnv } from "../helpers/app-with-env";
import { jsonAnswer, mcpHeaders, rpc } from "../helpers/mcp-raw";
import { countRowsIn } from "../helpers/rows";
import { ACME_TOKEN } from "../helpers/tokens";

// DEMO_DATA turned on over a database that already holds real orders. An adversarial run made a real ORD-1001 with
// simulate_new_failure while DEMO_DATA was off, then turned it on: the demo orders were mixed in among the real one,
// and ORD-1001 gained a demo order_seeded event describing another customer's delivered order, dated before it
// existed. The load is refused instead, with a sentence, and no seed event is ever written beside another order.
// This file has a database of its own (ALONE_TESTS), empty at the start.

const call = (name: string, overrides: Record<string, unknown>) =>
  fetchWithEnv(
    new Request("http://localhost/mcp", {
      method: "POST",
      headers: mcpHeaders({ token: ACME_TOKEN, accept: "application/json" }),
      body: JSON.stringify(rpc(1, "tools/call", { name, arguments: {} })),
    }),
    overrides,
  );

const count = (sql: string, ...params: unknown[]) => countRowsIn(env.DB, sql, ...params);

describe("demo data over real orders", () => {
  it("is refused with a sentence: no demo order, no seed event, no seed run; the real order keeps its history", async () => {
    const made = await jsonAnswer(await call("simulate_new_failure", { DEMO_DATA: "off" }));
    expect(made.result?.isError ?? false).toBe(false);
    const orderId = (made.result?.structuredContent as { order_id?: string } | undefined)?.order_id ?? "";
    const events = await count("SELECT count(*) AS n FROM audit_events WHERE order_id = ?", orderId);

    expect(await loadSeed(env.DB)).toEqual({ ok: false, error: { code: "conflict", message: REAL_ORDERS_REFUSAL } });
    // And through a request with DEMO_DATA on, which serves the database as it is.
    expect((await call("list_order_exceptions", { DEMO_DATA: "on" })).status).toBe(200);

    expect(await count("SELECT count(*) AS n FROM orders")).toBe(1);
    expect(await count("SELECT count(*) AS n FROM seed_runs")).toBe(0);
    expect(await count("SELECT count(*) AS n FROM audit_events WHERE event_type = 'order_seeded'")).toBe(0);
    expect(await count("SELECT count(*) AS n FROM audit_events WHERE order_id = ?", orderId)).toBe(events);
  });
});
