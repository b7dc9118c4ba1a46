import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLIENT_GENERATIONS, type McpTestClient } from "../helpers/mcp-client";
import { countOrders } from "../helpers/rows";
import { expectedOrders, freshSeed, hasOrder, previewOrder } from "../helpers/synthetic";
import { ACME_TOKEN } from "../helpers/tokens";
import { toolErrorOf } from "../helpers/tool-results";

// Over both protocol eras: the v1 client at 2025-11-25 and the v2 client at 2026-07-28.
describe.each(CLIENT_GENERATIONS)("$label", (generation) => {
  // preview_order driven through a real SDK client: the generator's first order
  // for a mode and seed, the same every time, and nothing written to D1. The
  // synthetic tools that send are in synthetic-tools.test.ts.

  const ACCOUNT = "acme";
  let client: McpTestClient;

  beforeAll(async () => {
    client = await generation.connect(ACME_TOKEN, "preview-order");
  });
  afterAll(async () => {
    await client.close();
  });

  const preview = (args: Record<string, unknown>) => previewOrder(client, args);

  describe("preview_order", () => {
    it("the same mode and seed give byte-identical JSON", async () => {
      const seed = freshSeed();
      for (const mode of ["seeded", "simple"]) {
        const first = await preview({ mode, seed });
        const second = await preview({ mode, seed });
        expect(second.text).toBe(first.text);
        expect(first.preview.seed).toBe(seed);
        expect(first.preview.mode).toBe(mode);
      }
    });

    it("mode defaults to seeded", async () => {
      const seed = freshSeed();
      expect((await preview({ seed })).text).toBe((await preview({ mode: "seeded", seed })).text);
    });

    it("seeded and simple orders for the same seed differ", async () => {
      const seed = freshSeed();
      const seeded = (await preview({ mode: "seeded", seed })).preview;
      const simple = (await preview({ mode: "simple", seed })).preview;
      expect(simple.order).not.toEqual(seeded.order);
      expect(seeded.order.customer_id).toMatch(/^CUST-\d{4}$/);
      expect(simple.order.customer_id).toMatch(/^C-\d{4}$/);
    });

    it("is exactly the first order the generator produces, with its line count and total", async () => {
      const seed = freshSeed();
      const { preview: value } = await preview({ mode: "seeded", seed });
      const [first] = expectedOrders("seeded", seed, 1);
      expect(value).toEqual({
        mode: "seeded",
        seed,
        order: first,
        line_count: first?.lines.length,
        total_cents: first?.total_cents,
      });
    });

    it("an omitted seed is chosen by the server and reported, and replaying it gives the same order", async () => {
      const first = await preview({ mode: "simple" });
      expect(Number.isInteger(first.preview.seed)).toBe(true);
      expect(first.preview.seed).toBeGreaterThanOrEqual(0);
      expect(first.preview.seed).toBeLessThanOrEqual(0xffff_ffff);
      expect((await preview({ mode: "simple", seed: first.preview.seed })).text).toBe(first.text);
    });

    it("writes nothing", async () => {
      const seed = freshSeed();
      const before = await countOrders();
      const { preview: value } = await preview({ mode: "seeded", seed });
      await preview({ mode: "simple", seed });
      expect(await countOrders()).toBe(before);
      expect(await hasOrder(ACCOUNT, value.order.request_id)).toBe(false);
    });

    it("accepts the largest seed and refuses one past it", async () => {
      expect((await preview({ seed: 0xffff_ffff })).preview.seed).toBe(0xffff_ffff);
      const refused = toolErrorOf(await client.callTool({ name: "preview_order", arguments: { seed: 0x1_0000_0000 } }));
      expect(refused).toContain("seed");
    });
  });
});
