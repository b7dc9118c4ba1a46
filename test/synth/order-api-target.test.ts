import { describe, expect, it } from "vitest";
import { orderApiTarget } from "../../src/synth/order-api-target";
import { throwingFetcher } from "../helpers/account-agent";
import { HEALTHY, UNREACHABLE_PREFIX } from "../helpers/synth-fakes";
import { expectedOrders } from "../helpers/synthetic";

// The ORDER_API client: every failure of the binding becomes upstream_unreachable.

describe("orderApiTarget over a failing binding", () => {
  it("health() turns a throwing fetch into upstream_unreachable", async () => {
    const target = orderApiTarget(throwingFetcher("network connection lost"), "acme", 1000);
    expect(await target.health()).toEqual({
      ok: false,
      error: { code: "upstream_unreachable", message: `${UNREACHABLE_PREFIX}network connection lost` },
    });
  });

  it("postOrder() turns a throwing fetch into upstream_unreachable", async () => {
    const target = orderApiTarget(throwingFetcher("network connection lost"), "acme", 1000);
    const [order] = expectedOrders("seeded", 1, 1);
    if (!order) throw new Error("no order");
    const result = await target.postOrder(order);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.message).toContain("cannot reach the order API at");
  });

  it("a health answer that is not a health report counts as unreachable", async () => {
    const fetcher = { fetch: async () => Response.json({ code: "internal" }, { status: 500 }) } as unknown as Fetcher;
    expect(await orderApiTarget(fetcher, "acme", 1000).health()).toEqual({
      ok: false,
      error: {
        code: "upstream_unreachable",
        message: `${UNREACHABLE_PREFIX}GET /api/health answered 500 without a health report`,
      },
    });
  });

  it("a target that does not answer in time is reported as timed out", async () => {
    const hanging = {
      fetch: (_input: string, init: RequestInit) =>
        new Promise<Response>((_resolve, reject) => {
          init.signal?.addEventListener("abort", () => reject(init.signal?.reason));
        }),
    } as unknown as Fetcher;
    expect(await orderApiTarget(hanging, "acme", 20).health()).toEqual({
      ok: false,
      error: { code: "upstream_unreachable", message: `${UNREACHABLE_PREFIX}timed out` },
    });
  });

  it("every call names the account in the internal header and goes to /api on the binding", async () => {
    const seen: { method: string; path: string; account: string | null; contentType: string | null; body: string }[] =
      [];
    const recording = {
      fetch: async (input: string, init: RequestInit) => {
        const request = new Request(input, init);
        seen.push({
          method: request.method,
          path: new URL(request.url).pathname,
          account: request.headers.get("x-order-ops-account"),
          contentType: request.headers.get("content-type"),
          body: await request.text(),
        });
        return request.method === "GET"
          ? Response.json(HEALTHY)
          : Response.json({ order_id: "ORD-x" }, { status: 201 });
      },
    } as unknown as Fetcher;
    const target = orderApiTarget(recording, "globex", 1000);
    const [order] = expectedOrders("seeded", 3, 1);
    if (!order) throw new Error("no order");
    expect(await target.health()).toEqual({ ok: true, value: HEALTHY });
    expect(await target.postOrder(order)).toEqual({ ok: true, value: { status: 201, body: { order_id: "ORD-x" } } });
    expect(seen).toEqual([
      { method: "GET", path: "/api/health", account: "globex", contentType: null, body: "" },
      {
        method: "POST",
        path: "/api/orders",
        account: "globex",
        contentType: "application/json",
        body: JSON.stringify(order),
      },
    ]);
  });
});

describe("postOrder's answers", () => {
  function answering(status: number, read: { pulled: boolean }): Fetcher {
    return {
      fetch: async () =>
        new Response(
          new ReadableStream(
            {
              pull(controller) {
                read.pulled = true;
                controller.enqueue(new TextEncoder().encode(JSON.stringify({ errors: ["unknown customer C-1"] })));
                controller.close();
              },
            },
            { highWaterMark: 0 },
          ),
          { status, headers: { "content-type": "application/json" } },
        ),
    } as unknown as Fetcher;
  }

  it("with statusOnly, an accepted order's answer is read by its status alone; a rejection is still read whole", async () => {
    const [order] = expectedOrders("seeded", 1, 1);
    if (!order) throw new Error("no order");
    const accepted = { pulled: false };
    const answer = await orderApiTarget(answering(201, accepted), "acme", 1000).postOrder(order, { statusOnly: true });
    expect(answer).toEqual({ ok: true, value: { status: 201, body: null } });
    expect(accepted.pulled).toBe(false);
    const rejected = { pulled: false };
    const refusal = await orderApiTarget(answering(422, rejected), "acme", 1000).postOrder(order, { statusOnly: true });
    expect(refusal).toEqual({ ok: true, value: { status: 422, body: { errors: ["unknown customer C-1"] } } });
  });

  it("held to one invocation's limits, the request leaves only when a connection is free, and onSent says when", async () => {
    const { InvocationLimiter } = await import("../../src/core/platform-limits");
    const [order] = expectedOrders("seeded", 1, 1);
    if (!order) throw new Error("no order");
    const limiter = new InvocationLimiter({ connections: 6, subrequests: 1 });
    const target = orderApiTarget(answering(201, { pulled: false }), "acme", 1000, undefined, limiter);
    let sent = 0;
    expect((await target.postOrder(order, { onSent: () => sent++ })).ok).toBe(true);
    expect(sent).toBe(1);
    const over = await target.postOrder(order, { onSent: () => sent++ });
    expect(over.ok).toBe(false);
    if (!over.ok) expect(over.error.message).toContain("Too many subrequests by single Worker invocation.");
    expect(sent).toBe(1);
  });
});
