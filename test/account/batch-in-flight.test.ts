import { describe, expect, it } from "vitest";
import type { BatchRecord, BatchSummary } from "../../src/synth/batch-summary";
import { type AgentCall, withOrderApi } from "../helpers/account-agent";
import { type JsonRpcMessage, rpc } from "../helpers/mcp-raw";
import { freshSeed } from "../helpers/synthetic";

// The account object runs one batch at a time (its `batches` queue), but a
// batch waiting on the target holds up nothing else in the account: not the
// batch history, not order reads. The target is held at a gate until the test
// has read, so nothing here depends on timing.

function resultOf<T>(message: JsonRpcMessage): T {
  const result = message.result as
    | { structuredContent?: T; isError?: boolean; contents?: { text?: string }[] }
    | undefined;
  expect(result?.isError, JSON.stringify(message)).not.toBe(true);
  if (result?.contents) return JSON.parse(result.contents[0]?.text ?? "null") as T;
  return result?.structuredContent as T;
}

async function history(call: AgentCall, id: number): Promise<BatchRecord[]> {
  return resultOf<{ batches: BatchRecord[] }>(await call(rpc(id, "resources/read", { uri: "synthetic://batches" })))
    .batches;
}

describe("a batch in flight", () => {
  it("while its orders wait on the target, the account still answers reads, and its history already lists it as running", async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let firstPost: () => void = () => undefined;
    const posting = new Promise<void>((resolve) => (firstPost = resolve));
    const gated = (real: Fetcher) =>
      ({
        async fetch(input: RequestInfo | URL, init?: RequestInit) {
          const request = new Request(input, init);
          if (request.method === "POST") {
            firstPost();
            await gate;
          }
          return real.fetch(request);
        },
      }) as unknown as Fetcher;

    await withOrderApi("acme", gated, async (call) => {
      const seed = freshSeed();
      const sending = call(rpc(1, "tools/call", { name: "send_orders", arguments: { count: 3, seed } }));
      await posting;

      const during = (await history(call, 2)).find((b) => b.seed === seed);
      expect(during).toMatchObject({ seed, requested: 3, outcome: "running", finished_at: null });
      const status = resultOf<{ order_id: string }>(
        await call(rpc(3, "tools/call", { name: "get_order_status", arguments: { order_id: "ORD-1001" } })),
      );
      expect(status.order_id).toBe("ORD-1001");

      release();
      const summary = resultOf<BatchSummary>(await sending);
      expect(summary.status_counts).toEqual({ "201": 3 });
      expect((await history(call, 4)).find((b) => b.seed === seed)).toMatchObject({
        batch_id: summary.batch_id,
        outcome: "completed",
        accepted: 3,
      });
    });
  });
});
