import { describe, expect, it } from "vitest";
import type { BatchSummary } from "../../src/synth/batch-summary";
import type { TargetStatus } from "../../src/synth/target-check";
import { rpc } from "../helpers/mcp-raw";
import { receivedBySecondApi, secondApiVars, secondOrderApi, withAcmeVars } from "../helpers/second-order-api";
import { countRequestIds, expectedOrders, freshSeed } from "../helpers/synthetic";

// The tools with ORDER_API_URL set: check_target names the URL and its one
// allowed host, and send_orders posts to the second local API, from the
// account's object, instead of the built-in one.

describe("check_target with ORDER_API_URL", () => {
  it("reports the configured URL, the allowed host and the second API's counts", async () => {
    const answer = await withAcmeVars(secondApiVars(), (call) =>
      call(rpc(1, "tools/call", { name: "check_target", arguments: {} })),
    );
    expect(answer.result?.structuredContent as TargetStatus).toEqual({
      target: `ORDER_API_URL ${secondOrderApi().url} (fixed in configuration)`,
      allowed_host: new URL(secondOrderApi().url).host,
      reachable: true,
      skus: 3,
      customers: 2,
      problem: null,
    });
  });

  it("a URL that redirects is unreachable, and the answer says the redirect was not followed", async () => {
    const answer = await withAcmeVars(secondApiVars("/redirect"), (call) =>
      call(rpc(2, "tools/call", { name: "check_target", arguments: {} })),
    );
    const status = answer.result?.structuredContent as TargetStatus;
    expect(status).toMatchObject({ reachable: false, skus: null, allowed_host: new URL(secondOrderApi().url).host });
    expect(status.problem).toBe(
      `cannot reach the order API at ORDER_API_URL ${secondOrderApi().url}/redirect (fixed in configuration): GET /api/health answered 307, a redirect to elsewhere.example, which is not followed`,
    );
  });
});

describe("send_orders with ORDER_API_URL", () => {
  it("the batch goes to the second API, with the account, actor and token, and none of it to the built-in one", async () => {
    const seed = freshSeed();
    const answer = await withAcmeVars(secondApiVars(), (call) =>
      call(rpc(3, "tools/call", { name: "send_orders", arguments: { count: 4, seed } })),
    );
    const summary = answer.result?.structuredContent as BatchSummary;
    expect(summary).toMatchObject({ seed, requested: 4, accepted: 4, rejected: 0, status_counts: { "201": 4 } });

    const requestIds = expectedOrders("seeded", seed, 4).map((o) => o.request_id);
    const received = (await receivedBySecondApi()).filter((r) => requestIds.includes(r.request_id));
    expect(received.map((r) => r.request_id).sort()).toEqual([...requestIds].sort());
    for (const r of received) {
      expect(r).toMatchObject({
        account: "acme",
        actor: encodeURIComponent("Ada Ops (acme, local dev) via send_orders"),
        authorization: `Bearer ${secondOrderApi().token}`,
      });
    }
    expect(await countRequestIds("acme", requestIds)).toBe(0);
  });

  it("a target that redirects fails the batch before any order leaves, saying the redirect was not followed", async () => {
    const seed = freshSeed();
    const answer = await withAcmeVars(secondApiVars("/redirect"), (call) =>
      call(rpc(4, "tools/call", { name: "send_orders", arguments: { count: 2, seed } })),
    );
    expect(answer.result?.isError).toBe(true);
    const text = (answer.result?.content as { text: string }[] | undefined)?.[0]?.text ?? "";
    expect(text).toContain("GET /api/health answered 307, a redirect to elsewhere.example, which is not followed");
    const requestIds = expectedOrders("seeded", seed, 2).map((o) => o.request_id);
    expect((await receivedBySecondApi()).filter((r) => requestIds.includes(r.request_id))).toEqual([]);
  });

  it("back on the binding afterwards: the built-in API takes the next batch", async () => {
    const seed = freshSeed();
    const answer = await withAcmeVars({}, (call) =>
      call(rpc(5, "tools/call", { name: "send_orders", arguments: { count: 2, seed } })),
    );
    expect((answer.result?.structuredContent as BatchSummary | undefined)?.accepted).toBe(2);
    expect(
      await countRequestIds(
        "acme",
        expectedOrders("seeded", seed, 2).map((o) => o.request_id),
      ),
    ).toBe(2);
  });
});
