import { referenceData } from "../../src/orders/reference-data";
import { findOrderProblems } from "../../src/orders/validate-order";
import { type GeneratorMode, generateOrders } from "../../src/synth/generators";
import type { Preview } from "../../src/synth/target-check";
import type { McpTestClient } from "./mcp-client";
import { countOrdersFor } from "./rows";
import { structuredOf } from "./tool-results";

/** A seed no other test in the run is likely to use (D1 is shared between a file's tests). */
export function freshSeed(): number {
  return crypto.getRandomValues(new Uint32Array(1))[0] ?? 1;
}

export async function hasOrder(account: string, requestId: string): Promise<boolean> {
  return (await countOrdersFor(account, requestId)) > 0;
}

/** How many of the given request ids the account has in D1. */
export async function countRequestIds(account: string, requestIds: readonly string[]): Promise<number> {
  let found = 0;
  for (const id of requestIds) if (await hasOrder(account, id)) found++;
  return found;
}

/** The orders a batch will send, computed locally from the same generator. */
export function expectedOrders(mode: GeneratorMode, seed: number, count: number) {
  return generateOrders(mode, seed, count, referenceData);
}

export function expectedTotalCents(mode: GeneratorMode, seed: number, count: number): number {
  return expectedOrders(mode, seed, count).reduce((sum, order) => sum + order.total_cents, 0);
}

/** The sample_failures a simple-mode batch reports: the status, then each reason, separated by semicolons. */
export function expectedSampleFailures(seed: number, count: number, max = 5): string[] {
  return expectedOrders("simple", seed, count)
    .slice(0, max)
    .map((order) => `422 ${findOrderProblems(order, referenceData).join("; ")}`);
}

/** preview_order's answer, and its JSON text for byte-for-byte comparisons. */
export async function previewOrder(
  client: McpTestClient,
  args: Record<string, unknown>,
): Promise<{ preview: Preview; text: string }> {
  const result = await client.callTool({ name: "preview_order", arguments: args });
  const value = structuredOf<Preview>(result);
  return { preview: value, text: JSON.stringify(value) };
}
