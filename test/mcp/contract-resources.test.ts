import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RUN_NOT_FOUND } from "../../src/runs/coordinator";
import type { BatchSummary } from "../../src/synth/batch-summary";
import type { Preview, TargetStatus } from "../../src/synth/target-check";
import { CLIENT_GENERATIONS, type McpTestClient } from "../helpers/mcp-client";
import { freshSeed } from "../helpers/synthetic";
import { ACME_TOKEN } from "../helpers/tokens";
import { resourceJson, structuredOf, toolErrorOf } from "../helpers/tool-results";

// The resources and tool results an MCP client sees, identical for a 2025
// client (v1 SDK) and a 2026-07-28 client (v2 SDK). The tools themselves are
// in contract.test.ts.

const EXPECTED_RESOURCES = ["synthetic://batches", "synthetic://catalog", "synthetic://runs"];

const EXPECTED_RESOURCE_TEMPLATES = ["synthetic://runs/{run_id}"];

describe.each(CLIENT_GENERATIONS)("through the $label (protocol $protocol)", (generation) => {
  let client: McpTestClient;

  beforeAll(async () => {
    client = await generation.connect(ACME_TOKEN, "contract");
  });
  afterAll(async () => {
    await client.close();
  });

  describe("resources", () => {
    it("lists the catalog and the batch history", async () => {
      const { resources } = await client.listResources();
      const uris = resources.map((r) => r.uri).sort();
      for (const uri of EXPECTED_RESOURCES) expect(uris).toContain(uri);
      // Data is JSON; the ui:// cards (test/mcp/apps.test.ts) are MCP Apps HTML.
      for (const resource of resources)
        expect(resource.mimeType).toBe(
          resource.uri.startsWith("ui://") ? "text/html;profile=mcp-app" : "application/json",
        );
    });

    it("lists exactly one template: a single traffic run by its id", async () => {
      const { resourceTemplates } = await client.listResourceTemplates();
      expect(resourceTemplates.map((t) => t.uriTemplate).sort()).toEqual(EXPECTED_RESOURCE_TEMPLATES);
      expect(resourceTemplates[0]).toMatchObject({ name: "run", mimeType: "application/json" });
    });

    it("a run id that is not this account's reads as not found, with the server's sentence", async () => {
      const uri = "synthetic://runs/R-not-a-run";
      const error = await client.readResource({ uri }).then(
        () => undefined,
        (e: { code?: number; message?: string }) => e,
      );
      expect(error?.code).toBe(-32602);
      expect(error?.message).toContain(RUN_NOT_FOUND);
    });

    it("synthetic://catalog is exactly the in-stock seed catalog", async () => {
      const catalog = resourceJson<{ skus: { sku: string; name: string; unit_price_cents: number }[] }>(
        await client.readResource({ uri: "synthetic://catalog" }),
      );
      expect(catalog.skus.map((s) => s.sku)).toEqual([
        "SKU-1180",
        "SKU-2240",
        "SKU-3390",
        "SKU-4415",
        "SKU-5510",
        "SKU-6300",
        "SKU-6301",
      ]);
      expect(catalog.skus[4]).toEqual({ sku: "SKU-5510", name: "Cotton field socks (3 pack)", unit_price_cents: 1850 });
      expect(catalog.skus.some((s) => s.sku === "SKU-7720")).toBe(false);
    });
  });

  describe("tool results", () => {
    const seed = freshSeed();

    it("check_target: structuredContent, mirrored exactly in its text", async () => {
      const status = structuredOf<TargetStatus>(await client.callTool({ name: "check_target", arguments: {} }));
      expect(status.reachable).toBe(true);
    });

    it.each([
      ["seeded", { mode: "seeded", seed }],
      ["simple", { mode: "simple", seed }],
      ["defaults", {}],
    ])("preview_order (%s): structuredContent, mirrored exactly in its text", async (_label, args) => {
      const preview = structuredOf<Preview>(await client.callTool({ name: "preview_order", arguments: args }));
      expect(preview.line_count).toBe(preview.order.lines.length);
      expect(preview.total_cents).toBe(preview.order.total_cents);
    });

    it.each([
      ["seeded", { count: 2, mode: "seeded", seed }],
      ["simple", { count: 2, mode: "simple", seed }],
    ])("send_orders (%s): structuredContent, mirrored exactly in its text", async (_label, args) => {
      const summary = structuredOf<BatchSummary>(await client.callTool({ name: "send_orders", arguments: args }));
      expect(summary.requested).toBe(2);
      expect(summary.accepted + summary.rejected).toBe(2);
    });

    it("a refused call is a tool error with a readable text and no structuredContent", async () => {
      expect(toolErrorOf(await client.callTool({ name: "send_orders", arguments: { count: 101 } }))).toBe(
        "count 101 exceeds the server's MAX_BATCH of 100; send smaller batches or raise MAX_BATCH in the server environment",
      );
    });
  });
});
