import { z } from "zod/v4";
import { ok } from "../../core/errors";
import { referenceData } from "../../orders/reference-data";
import { BatchSummarySchema } from "../../synth/batch-summary";
import { PreviewSchema, TargetStatusSchema } from "../../synth/target-check";
import type { AccountFixedResource } from "../resource-registration";
import { EmptyInput, ModeParam, SeedParam } from "./params";
import { type AccountTool, defineTool } from "./tool-registration";

const checkTarget = defineTool({
  name: "check_target",
  scope: "traffic:read",
  title: "Check the order API",
  description:
    "Reports whether the order API synthetic traffic goes to is reachable, with its SKU and customer counts; an unreachable one answers reachable:false with a problem.",
  input: EmptyInput,
  output: TargetStatusSchema,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async (_args, context) => ok(await context.traffic.checkTarget()),
});

const previewOrder = defineTool({
  name: "preview_order",
  scope: "traffic:read",
  title: "Preview a synthetic order",
  description:
    "Generates one synthetic order without sending it: the first order send_orders would send with the same mode and seed.",
  input: z.object({ mode: ModeParam, seed: SeedParam }),
  output: PreviewSchema,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async ({ mode, seed }, context) => ok(context.traffic.preview(mode, seed)),
});

const sendOrders = defineTool({
  name: "send_orders",
  scope: "traffic:send",
  title: "Send synthetic orders",
  description:
    "Posts `count` synthetic orders to the order API and summarizes the answers by HTTP status, with up to 5 sample failures. Replaying the same count, mode and seed creates no duplicates (request_id is idempotent).",
  // The advertised ceiling is this server's MAX_BATCH, so a model never plans a size it cannot use.
  input: (config) =>
    z.object({
      // The bounds are advertised, not enforced, by the schema: the handler refuses
      // out-of-range counts with the readable messages users know.
      count: z
        .number()
        .int()
        .meta({ minimum: 1, maximum: config.maxBatch })
        .describe(`How many orders to send, at most ${config.maxBatch} (this server's MAX_BATCH).`),
      mode: ModeParam,
      seed: SeedParam,
    }),
  output: BatchSummarySchema,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  handler: async ({ count, mode, seed }, context, { reportProgress }) =>
    context.agent.sendOrders(
      { count, mode, seed },
      reportProgress && ((sent, total) => reportProgress(sent, total, `sent ${sent} of ${total} orders`)),
    ),
});

export const syntheticTools: readonly AccountTool[] = [checkTarget, previewOrder, sendOrders];

export const syntheticResources: readonly AccountFixedResource[] = [
  {
    name: "catalog",
    scope: "traffic:read",
    uri: "synthetic://catalog",
    title: "Sellable catalog",
    description: "The in-stock catalog rows the seeded generator draws from: sku, name and unit price in cents.",
    // Seed data: it changes only with a deploy.
    cacheHint: { ttlMs: 5 * 60_000, cacheScope: "private" },
    read: async () =>
      ok({
        skus: referenceData.sellable.map(({ sku, name, unit_price_cents }) => ({ sku, name, unit_price_cents })),
      }),
  },
  {
    name: "batches",
    scope: "traffic:read",
    uri: "synthetic://batches",
    title: "Batch history",
    description:
      "This account's most recent synthetic batches, newest first, each with its seed (for replay) and summary.",
    read: async (context) => {
      const batches = await context.agent.recentBatches();
      return batches.ok ? ok({ batches: batches.value }) : batches;
    },
  },
];
