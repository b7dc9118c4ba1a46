import { env } from "cloudflare:workers";
import type { Progress } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/config";
import { publishedSchema } from "../../src/mcp/published-schema";
import { syntheticTools } from "../../src/mcp/tools/synthetic.tools";
import type { BatchSummary } from "../../src/synth/batch-summary";
import { BINDING_TARGET_NAME } from "../../src/synth/order-api-target";
import type { TargetStatus } from "../../src/synth/target-check";
import { CLIENT_GENERATIONS, connectClient, type McpTestClient } from "../helpers/mcp-client";
import { expectInvariantsHold } from "../helpers/orders";
import { countOrders } from "../helpers/rows";
import {
  countRequestIds,
  expectedOrders,
  expectedSampleFailures,
  expectedTotalCents,
  freshSeed,
  hasOrder,
  previewOrder,
} from "../helpers/synthetic";
import { ACME_TOKEN } from "../helpers/tokens";
import { structuredOf, toolErrorOf } from "../helpers/tool-results";

// Over both protocol eras: the v1 client at 2025-11-25 and the v2 client at 2026-07-28.
describe.each(CLIENT_GENERATIONS)("$label", (generation) => {
  // The synthetic-traffic tools driven through a real SDK client, checked
  // against what actually lands in D1 for the caller's account. preview_order,
  // which writes nothing, is in preview-order.test.ts.

  const ACCOUNT = "acme";
  let client: McpTestClient;

  beforeAll(async () => {
    client = await generation.connect(ACME_TOKEN, "synthetic-tools");
  });
  afterAll(async () => {
    await expectInvariantsHold();
    await client.close();
  });

  async function send(args: Record<string, unknown>): Promise<BatchSummary> {
    return structuredOf<BatchSummary>(await client.callTool({ name: "send_orders", arguments: args }));
  }

  async function sendError(args: Record<string, unknown>): Promise<string> {
    return toolErrorOf(await client.callTool({ name: "send_orders", arguments: args }));
  }

  describe("check_target", () => {
    it("reports the configured binding as reachable with the seed's counts", async () => {
      const status = structuredOf<TargetStatus>(await client.callTool({ name: "check_target", arguments: {} }));
      expect(status).toEqual({
        target: "ORDER_API (service binding in wrangler.toml)",
        allowed_host: null,
        reachable: true,
        skus: 8,
        customers: 5,
        problem: null,
      });
      expect(status.target).toBe(BINDING_TARGET_NAME);
    });
  });

  describe("send_orders", () => {
    it("sends first exactly the order preview showed for the same seed", async () => {
      const seed = freshSeed();
      const { preview: value } = await previewOrder(client, { mode: "seeded", seed });
      expect(await hasOrder(ACCOUNT, value.order.request_id)).toBe(false);
      await send({ count: 3, mode: "seeded", seed });
      expect(await hasOrder(ACCOUNT, value.order.request_id)).toBe(true);
    });

    it("seeded: every order is accepted (201) and stored for the caller's account", async () => {
      const seed = freshSeed();
      const count = 7;
      const before = await countOrders(ACCOUNT);
      const summary = await send({ count, mode: "seeded", seed });
      expect(summary).toEqual({
        batch_id: summary.batch_id,
        mode: "seeded",
        seed,
        requested: count,
        accepted: count,
        rejected: 0,
        status_counts: { "201": count },
        accepted_total_cents: expectedTotalCents("seeded", seed, count),
        sample_failures: [],
      });
      expect(summary.batch_id).toMatch(/^B-[0-9a-z]+-[0-9a-f]{8}$/);
      expect(await countOrders(ACCOUNT)).toBe(before + count);
      const requestIds = expectedOrders("seeded", seed, count).map((o) => o.request_id);
      expect(await countRequestIds(ACCOUNT, requestIds)).toBe(count);
    });

    it("replaying a seed answers 200 for every order, with the same total and no new rows", async () => {
      const seed = freshSeed();
      const count = 6;
      const first = await send({ count, seed });
      const afterFirst = await countOrders(ACCOUNT);
      const replay = await send({ count, seed });
      expect(replay.accepted_total_cents).toBe(first.accepted_total_cents);
      expect(replay.status_counts).toEqual({ "200": count });
      expect(replay.accepted).toBe(count);
      expect(replay.seed).toBe(seed);
      expect(replay.batch_id).not.toBe(first.batch_id);
      expect(await countOrders(ACCOUNT)).toBe(afterFirst);
    });

    it("an omitted seed is reported back, and sending it again replays the batch", async () => {
      const count = 4;
      const first = await send({ count });
      expect(Number.isInteger(first.seed)).toBe(true);
      expect(first.status_counts).toEqual({ "201": count });
      expect(first.accepted_total_cents).toBe(expectedTotalCents("seeded", first.seed, count));
      const replay = await send({ count, seed: first.seed });
      expect(replay.accepted_total_cents).toBe(first.accepted_total_cents);
      expect(replay.status_counts).toEqual({ "200": count });
    });

    it("simple: every order is rejected with 422 and readable reasons", async () => {
      const seed = freshSeed();
      const count = 3;
      const before = await countOrders(ACCOUNT);
      const summary = await send({ count, mode: "simple", seed });
      expect(summary).toMatchObject({
        mode: "simple",
        seed,
        requested: count,
        accepted: 0,
        rejected: count,
        accepted_total_cents: 0,
      });
      expect(summary.status_counts).toEqual({ "422": count });
      expect(summary.sample_failures).toHaveLength(count);
      for (const failure of summary.sample_failures) {
        expect(failure).toMatch(/^422 unknown customer C-\d{4}; unknown sku SKU-\d{4}/);
      }
      expect(summary.sample_failures).toEqual(expectedSampleFailures(seed, count));
      expect(await countOrders(ACCOUNT)).toBe(before);
    });

    it("simple: at most 5 sample failures, the first five in batch order", async () => {
      const seed = freshSeed();
      const summary = await send({ count: 12, mode: "simple", seed });
      expect(summary.rejected).toBe(12);
      expect(summary.status_counts).toEqual({ "422": 12 });
      expect(summary.sample_failures).toHaveLength(5);
      expect(summary.sample_failures).toEqual(expectedSampleFailures(seed, 12));
    });

    it.each([
      [
        500,
        "count 500 exceeds the server's MAX_BATCH of 100; send smaller batches or raise MAX_BATCH in the server environment",
      ],
      [
        101,
        "count 101 exceeds the server's MAX_BATCH of 100; send smaller batches or raise MAX_BATCH in the server environment",
      ],
      [0, "count must be at least 1, got 0"],
      [-3, "count must be at least 1, got -3"],
    ])("count %i is refused, not clamped: %s", async (count, message) => {
      const before = await countOrders();
      expect(await sendError({ count, seed: freshSeed() })).toBe(message);
      expect(await countOrders()).toBe(before);
    });

    it("count 100 (= MAX_BATCH) is allowed", async () => {
      const summary = await send({ count: 100, mode: "simple", seed: freshSeed() });
      expect(summary.requested).toBe(100);
      expect(summary.status_counts).toEqual({ "422": 100 });
    });

    it("a fractional count is refused by the input schema", async () => {
      expect(await sendError({ count: 2.5 })).toContain("count");
    });

    // The v1 client's progress callback; test/mcp/protocol-2026.test.ts streams progress at 2026-07-28.
    it.runIf(generation.protocol === "2025-11-25")(
      "reports progress when the client asks for it; the last event has progress === total",
      async () => {
        const events: Progress[] = [];
        const count = 10;
        const v1 = await connectClient(ACME_TOKEN, "synthetic-progress");
        const summary = structuredOf<BatchSummary>(
          await v1.callTool({ name: "send_orders", arguments: { count, seed: freshSeed() } }, undefined, {
            onprogress: (progress) => events.push(progress),
          }),
        );
        await v1.close();
        expect(summary.accepted).toBe(count);
        expect(events.length).toBeGreaterThan(1);
        expect(events.map((e) => e.progress)).toEqual([...events.map((e) => e.progress)].sort((a, b) => a - b));
        for (const event of events) expect(event.total).toBe(count);
        expect(events.at(-1)).toEqual({ progress: count, total: count, message: `sent ${count} of ${count} orders` });
      },
    );

    it("an injected url argument is refused, naming it, and no order is sent anywhere", async () => {
      const seed = freshSeed();
      const before = await countOrders();
      const text = await sendError({ count: 2, seed, url: "https://evil.example" });
      expect(text).toBe('Input validation error: Invalid arguments for tool send_orders: Unrecognized key: "url"');
      expect(await countOrders()).toBe(before);
      const requestIds = expectedOrders("seeded", seed, 2).map((o) => o.request_id);
      expect(await countRequestIds(ACCOUNT, requestIds)).toBe(0);
      expect(await countRequestIds("globex", requestIds)).toBe(0);
    });

    it("several injected arguments are all named, and nothing is sent", async () => {
      const seed = freshSeed();
      const before = await countOrders();
      const text = await sendError({
        count: 2,
        seed,
        url: "https://evil.example/orders",
        target: "https://evil.example",
        account: "globex",
      });
      expect(text).toBe(
        'Input validation error: Invalid arguments for tool send_orders: Unrecognized keys: "url", "target", "account"',
      );
      expect(await countOrders()).toBe(before);
    });

    it("the same call without the unknown argument goes through (control)", async () => {
      const seed = freshSeed();
      expect((await send({ count: 2, seed })).status_counts).toEqual({ "201": 2 });
      const requestIds = expectedOrders("seeded", seed, 2).map((o) => o.request_id);
      expect(await countRequestIds(ACCOUNT, requestIds)).toBe(2);
    });
  });

  describe("send_orders' published input schema", () => {
    it("advertises the configured MAX_BATCH as count's maximum, not the default", () => {
      const config = parseConfig({ ...env, MAX_BATCH: "5" });
      if (!config.ok) throw new Error(config.error.message);
      const input = syntheticTools.find((tool) => tool.name === "send_orders")?.input;
      if (typeof input !== "function") throw new Error("send_orders' input should depend on the configuration");
      const json = publishedSchema(input(config.value))["~standard"].jsonSchema.input({ target: "draft-2020-12" });
      expect(json).toMatchObject({ properties: { count: { type: "integer", minimum: 1, maximum: 5 } } });
      expect((json as { properties: { count: { description: string } } }).properties.count.description).toContain(
        "at most 5",
      );
    });
  });
});
