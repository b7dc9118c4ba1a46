import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  BINDING_TARGET_NAME,
  configuredTarget,
  describeTarget,
  orderApiTarget,
  urlTarget,
} from "../../src/synth/order-api-target";
import { answerOf } from "../../src/synth/send-batch";
import { parsed } from "../helpers/config";
import { receivedBySecondApi, secondApiVars, secondOrderApi } from "../helpers/second-order-api";
import { expectedOrders, freshSeed } from "../helpers/synthetic";

// The URL target, against the second order API that runs on this machine
// for the suite (never the internet): the same contract and headers as the
// binding, its credential as a bearer token, and no redirect followed.

const DEV = { ENVIRONMENT: "development" };

function target(basePath = "", token?: string, timeoutMs = 2000) {
  const { orderApiUrl } = parsed({ ...DEV, ...secondApiVars(basePath, token) });
  if (!orderApiUrl) throw new Error("ORDER_API_URL did not parse");
  return {
    api: urlTarget(orderApiUrl, "acme", timeoutMs, "Ada Ops via a test"),
    name: describeTarget(parsed({ ...DEV, ...secondApiVars(basePath, token) })).name,
  };
}

function oneOrder() {
  const [order] = expectedOrders("seeded", freshSeed(), 1);
  if (!order) throw new Error("no order");
  return order;
}

describe("a URL target", () => {
  it("reads the second API's health report, not the built-in one", async () => {
    expect(await target().api.health()).toEqual({ ok: true, value: { status: "ok", skus: 3, customers: 2 } });
  });

  it("posts orders with the account, actor and bearer token, and the second API's idempotency answers a replay 200", async () => {
    const order = oneOrder();
    const { api } = target();
    expect(await api.postOrder(order)).toMatchObject({ ok: true, value: { status: 201, body: { second_api: true } } });
    expect(await api.postOrder(order)).toMatchObject({ ok: true, value: { status: 200 } });
    const received = (await receivedBySecondApi()).filter((r) => r.request_id === order.request_id);
    expect(received).toEqual([
      {
        request_id: order.request_id,
        account: "acme",
        actor: "Ada%20Ops%20via%20a%20test",
        authorization: `Bearer ${secondOrderApi().token}`,
        status: 201,
      },
      {
        request_id: order.request_id,
        account: "acme",
        actor: "Ada%20Ops%20via%20a%20test",
        authorization: `Bearer ${secondOrderApi().token}`,
        status: 200,
      },
    ]);
  });

  it("a refused credential is an answered order: a rejection with the API's reason", async () => {
    const order = oneOrder();
    const posted = await target("", "not-the-token").api.postOrder(order);
    if (!posted.ok) throw new Error(posted.error.message);
    expect(answerOf(order, posted.value)).toEqual({
      kind: "rejected",
      status: 401,
      reason: "401 this API wants its bearer token",
    });
  });

  it("a redirect answering an order is a rejection saying where it pointed, and it is not followed", async () => {
    const order = oneOrder();
    const posted = await target("/redirect").api.postOrder(order);
    if (!posted.ok) throw new Error(posted.error.message);
    expect(answerOf(order, posted.value)).toEqual({
      kind: "rejected",
      status: 307,
      reason: "307 redirect to elsewhere.example not followed",
    });
    // Had it been followed, the second API would have taken the order at /api/orders.
    expect((await receivedBySecondApi()).some((r) => r.request_id === order.request_id)).toBe(false);
  });

  it("a redirect answering the health check makes the target unreachable, saying so", async () => {
    const { api, name } = target("/redirect");
    expect(await api.health()).toEqual({
      ok: false,
      error: {
        code: "upstream_unreachable",
        message: `cannot reach the order API at ${name}: GET /api/health answered 307, a redirect to elsewhere.example, which is not followed`,
      },
    });
  });

  it("a target slower than the timeout is unreachable: timed out", async () => {
    const { api, name } = target("/slow", undefined, 100);
    expect(await api.health()).toEqual({
      ok: false,
      error: { code: "upstream_unreachable", message: `cannot reach the order API at ${name}: timed out` },
    });
  });

  it("a base path nothing serves answers the health check 404: unreachable, naming the URL", async () => {
    const { api, name } = target("/nothing-here");
    expect(name).toBe(`ORDER_API_URL ${secondOrderApi().url}/nothing-here (fixed in configuration)`);
    const health = await api.health();
    expect(health.ok === false && health.error.message).toBe(
      `cannot reach the order API at ${name}: GET /api/health answered 404 without a health report`,
    );
  });
});

describe("configuredTarget", () => {
  it("is the binding when ORDER_API_URL is unset", async () => {
    const config = parsed(DEV);
    expect(describeTarget(config)).toEqual({ name: BINDING_TARGET_NAME, allowedHost: null });
    expect(await configuredTarget(env, config, "acme").health()).toEqual({
      ok: true,
      value: { status: "ok", skus: 8, customers: 5 },
    });
  });

  it("is the URL target when ORDER_API_URL is set, and names its host", async () => {
    const config = parsed({ ...DEV, ...secondApiVars() });
    expect(describeTarget(config)).toEqual({
      name: `ORDER_API_URL ${secondOrderApi().url} (fixed in configuration)`,
      allowedHost: new URL(secondOrderApi().url).host,
    });
    expect(await configuredTarget(env, config, "acme").health()).toEqual({
      ok: true,
      value: { status: "ok", skus: 3, customers: 2 },
    });
  });
});

describe("answers a target cannot make the object hold", () => {
  function answering(body: BodyInit, headers: Record<string, string> = {}, status = 422): Fetcher {
    return { fetch: async () => new Response(body, { status, headers }) } as unknown as Fetcher;
  }

  it("a body over 64 KiB is not read, declared or streamed", async () => {
    const big = JSON.stringify({ message: "x".repeat(100 * 1024) });
    const declared = await orderApiTarget(
      answering(big, { "content-length": String(big.length) }),
      "acme",
      1000,
    ).postOrder(oneOrder());
    const streamed = await orderApiTarget(answering(new Blob([big]).stream()), "acme", 1000).postOrder(oneOrder());
    for (const posted of [declared, streamed])
      expect(posted).toEqual({
        ok: true,
        value: { status: 422, body: { message: "answer body over 64 KiB, not read" } },
      });
  });

  it("a small body streamed in pieces is read whole", async () => {
    const text = new TextEncoder().encode(JSON.stringify({ errors: ["unknown sku SKU-1"] }));
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(text.slice(0, 7));
        controller.enqueue(text.slice(7));
        controller.close();
      },
    });
    expect(await orderApiTarget(answering(body), "acme", 1000).postOrder(oneOrder())).toEqual({
      ok: true,
      value: { status: 422, body: { errors: ["unknown sku SKU-1"] } },
    });
  });

  it("the binding's redirects are not followed either", async () => {
    const redirecting = answering("", { location: "https://other.example/api/orders" }, 302);
    expect(await orderApiTarget(redirecting, "acme", 1000).postOrder(oneOrder())).toEqual({
      ok: true,
      value: { status: 302, body: { message: "redirect to other.example not followed" } },
    });
  });
});
