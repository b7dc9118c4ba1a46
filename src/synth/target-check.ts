/** check_target and preview_order: neither writes anything, so neither needs the account's object. */
import { z } from "zod/v4";
import { OrderRequestSchema } from "../orders/intake-schemas";
import { type ReferenceData, referenceData } from "../orders/reference-data";
import { type GeneratorMode, GeneratorModeSchema, orderStream } from "./generators";
import type { OrderApiTarget, TargetDescription } from "./order-api-target";
import { randomSeed } from "./prng";

export const TargetStatusSchema = z.object({
  target: z
    .string()
    .describe(
      "The configured target: the ORDER_API service binding, or the ORDER_API_URL; fixed by server configuration, never chosen by a tool",
    ),
  allowed_host: z
    .string()
    .nullable()
    .describe(
      "The only host synthetic traffic may reach (redirects elsewhere are not followed); null for the ORDER_API service binding",
    ),
  reachable: z.boolean(),
  skus: z.number().int().nullable().describe("SKU count the target reports; null when unreachable"),
  customers: z.number().int().nullable().describe("Customer count the target reports; null when unreachable"),
  problem: z.string().nullable().describe("Why the target is unreachable; null when reachable"),
});
export type TargetStatus = z.infer<typeof TargetStatusSchema>;

export const PreviewSchema = z.object({
  mode: GeneratorModeSchema,
  seed: z.number().int(),
  order: OrderRequestSchema,
  line_count: z.number().int(),
  total_cents: z.number().int(),
});
export type Preview = z.infer<typeof PreviewSchema>;

/** An unreachable target is data (reachable: false), not an error: the caller asked exactly this. */
export async function checkTarget(target: OrderApiTarget, about: TargetDescription): Promise<TargetStatus> {
  const named = { target: about.name, allowed_host: about.allowedHost };
  const health = await target.health();
  if (!health.ok) return { ...named, reachable: false, skus: null, customers: null, problem: health.error.message };
  return { ...named, reachable: true, skus: health.value.skus, customers: health.value.customers, problem: null };
}

export function previewOrder(
  mode: GeneratorMode,
  seed: number | undefined,
  reference: ReferenceData = referenceData,
): Preview {
  const chosenSeed = seed ?? randomSeed();
  const order = orderStream(mode, chosenSeed, reference).next().value;
  return { mode, seed: chosenSeed, order, line_count: order.lines.length, total_cents: order.total_cents };
}
