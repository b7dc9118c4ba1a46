import { describe, expect, it } from "vitest";
import type { BatchRecord, BatchSummary } from "../../src/synth/batch-summary";
import { BINDING_TARGET_NAME } from "../../src/synth/order-api-target";
import type { TargetStatus } from "../../src/synth/target-check";
import { throwingFetcher, withOrderApi } from "../helpers/account-agent";
import { CLIENT_GENERATIONS } from "../helpers/mcp-client";
import { rpc } from "../helpers/mcp-raw";
import { UNREACHABLE_PREFIX } from "../helpers/synth-fakes";
import { countRequestIds, expectedOrders, freshSeed, hasOrder } from "../helpers/synthetic";
import { ACME_TOKEN } from "../helpers/tokens";
import { resourceJson, structuredOf } from "../helpers/tool-results";

// Over both protocol eras: the v1 client at 2025-11-25 and the v2 client at 2026-07-28.
describe.each(CLIENT_GENERATIONS)("$label", (generation) => {
  // What an MCP client sees when the ORDER_API target cannot be reached:
  // check_target degrades to data, send_orders fails with a readable error that
  // says how far the batch got, and replaying the seed finishes it.

  describe("MCP tools with the ORDER_API binding down", () => {
    it("check_target over MCP answers reachable:false as data, not as an error", async () => {
      const answer = await withOrderApi(
        "acme",
        () => throwingFetcher("connection refused"),
        (call) => call(rpc(1, "tools/call", { name: "check_target", arguments: {} })),
      );
      expect(answer.result?.isError).toBeUndefined();
      const status = answer.result?.structuredContent as TargetStatus;
      expect(status).toEqual({
        target: BINDING_TARGET_NAME,
        allowed_host: null,
        reachable: false,
        skus: null,
        customers: null,
        problem: `${UNREACHABLE_PREFIX}connection refused`,
      });
    });

    it("send_orders over MCP is a tool error, and the batch history records it as failed with its seed", async () => {
      const seed = freshSeed();
      const answer = await withOrderApi(
        "acme",
        () => throwingFetcher("connection refused"),
        (call) => call(rpc(2, "tools/call", { name: "send_orders", arguments: { count: 3, seed } })),
      );
      expect(answer.result?.isError).toBe(true);
      expect(answer.result?.content).toEqual([{ type: "text", text: `${UNREACHABLE_PREFIX}connection refused` }]);

      const client = await generation.connect(ACME_TOKEN, "unreachable-history");
      try {
        const { batches } = resourceJson<{ batches: BatchRecord[] }>(
          await client.readResource({ uri: "synthetic://batches" }),
        );
        const record = batches.find((b) => b.seed === seed);
        expect(record).toMatchObject({
          seed,
          requested: 3,
          accepted: 0,
          outcome: "failed",
          error: `${UNREACHABLE_PREFIX}connection refused`,
        });
      } finally {
        await client.close();
      }
    });

    it("a binding that dies mid-batch: the error counts what was sent, and replaying the seed finishes without duplicates", async () => {
      const seed = freshSeed();
      const count = 10;
      const answer = await withOrderApi(
        "acme",
        (real) => {
          let posts = 0;
          return {
            fetch: (input: string, init: RequestInit) => {
              if (new URL(input).pathname === "/api/orders" && ++posts > 4) throw new Error("connection reset");
              return real.fetch(input, init);
            },
          } as unknown as Fetcher;
        },
        (call) => call(rpc(3, "tools/call", { name: "send_orders", arguments: { count, seed } })),
      );
      expect(answer.result?.isError).toBe(true);
      const text = (answer.result?.content as { text: string }[] | undefined)?.[0]?.text ?? "";
      const match =
        /^cannot reach the order API at ORDER_API .*: connection reset; (\d+) of 10 orders were answered before the batch stopped, and sending the same seed again finishes the batch without duplicates$/.exec(
          text,
        );
      expect(match, text).not.toBeNull();
      const sentBefore = Number(match?.[1]);
      expect(sentBefore).toBe(4);

      const batch = expectedOrders("seeded", seed, count);
      const requestIds = batch.map((o) => o.request_id);
      expect(await countRequestIds("acme", requestIds)).toBe(sentBefore);
      const landed: typeof batch = [];
      for (const order of batch) if (await hasOrder("acme", order.request_id)) landed.push(order);

      const client = await generation.connect(ACME_TOKEN, "unreachable-replay");
      try {
        const { batches } = resourceJson<{ batches: BatchRecord[] }>(
          await client.readResource({ uri: "synthetic://batches" }),
        );
        const record = batches.find((b) => b.seed === seed);
        // The failed batch keeps what did get through: 4 accepted orders and their total.
        expect(record).toEqual({
          batch_id: record?.batch_id,
          mode: "seeded",
          seed,
          requested: count,
          accepted: 4,
          rejected: 0,
          status_counts: { "201": 4 },
          accepted_total_cents: landed.reduce((sum, o) => sum + o.total_cents, 0),
          sample_failures: [],
          operator: "Ada Ops (acme, local dev)",
          started_at: record?.started_at,
          finished_at: record?.finished_at,
          outcome: "failed",
          error: text,
        });
        expect(record?.accepted_total_cents).toBeGreaterThan(0);

        const replay = structuredOf<BatchSummary>(
          await client.callTool({ name: "send_orders", arguments: { count, seed } }),
        );
        expect(replay.accepted).toBe(count);
        expect(replay.status_counts).toEqual({ "200": sentBefore, "201": count - sentBefore });
      } finally {
        await client.close();
      }
      expect(await countRequestIds("acme", requestIds)).toBe(count);
    });
  });
});
