import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { fetchWithEnv } from "../helpers/app-with-env";
import { jsonAnswer, mcpHeaders, rpc } from "../helpers/mcp-raw";
import { warmUp } from "../helpers/orders";
import { countRowsIn } from "../helpers/rows";
import { ACME_TOKEN } from "../helpers/tokens";

// The demo operations dataset (seed/operations.json) is demo data: a Worker
// writes it only where DEMO_DATA is on (.dev.vars and these tests), never on a
// deployment that did not ask for it. Both cases run on this file's own database.

const listExceptions = (overrides: Record<string, unknown>) =>
  fetchWithEnv(
    new Request("http://localhost/mcp", {
      method: "POST",
      headers: mcpHeaders({ token: ACME_TOKEN, accept: "application/json" }),
      body: JSON.stringify(rpc(1, "tools/call", { name: "list_order_exceptions", arguments: {} })),
    }),
    overrides,
  );

const demoOrders = () => countRowsIn(env.DB, "SELECT count(*) AS n FROM orders WHERE source = 'operations'");
const seedRuns = () => countRowsIn(env.DB, "SELECT count(*) AS n FROM seed_runs");

describe("DEMO_DATA", () => {
  it("off: reading the orders writes no demo order and no seed run, and the queue is empty", async () => {
    const answer = await jsonAnswer(await listExceptions({ DEMO_DATA: "off" }));
    expect(answer.result?.isError ?? false).toBe(false);
    expect((answer.result?.structuredContent as { exceptions: unknown[] } | undefined)?.exceptions).toEqual([]);
    expect(await demoOrders()).toBe(0);
    expect(await seedRuns()).toBe(0);
  });

  it("on: the first request loads the demo orders, once", async () => {
    const answer = await jsonAnswer(await listExceptions({ DEMO_DATA: "on" }));
    const listed = (answer.result?.structuredContent as { exceptions: unknown[] } | undefined)?.exceptions ?? [];
    expect(listed.length).toBeGreaterThan(0);
    expect(await demoOrders()).toBe(26);
    await warmUp();
    expect(await demoOrders()).toBe(26);
    expect(await seedRuns()).toBe(1);
  });
});
