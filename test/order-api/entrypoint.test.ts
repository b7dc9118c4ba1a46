import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  type ErrorBody,
  getOrder,
  type OrderView,
  type Receipt,
  readJson,
  uniqueRequestId,
  validOrder,
} from "../helpers/orders";
import { countOrdersFor } from "../helpers/rows";
import { GLOBEX_TOKEN } from "../helpers/tokens";

// The internal ORDER_API entrypoint acts for the account named in its
// x-order-ops-account header, and for no other caller.

describe("the internal ORDER_API entrypoint", () => {
  function internalPost(body: string, account?: string): Promise<Response> {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (account !== undefined) headers["x-order-ops-account"] = account;
    return env.ORDER_API.fetch("http://order-api/api/orders", { method: "POST", headers, body });
  }

  it("creates an order for the account named in x-order-ops-account", async () => {
    const requestId = uniqueRequestId("internal");
    const response = await internalPost(JSON.stringify(validOrder(requestId)), "globex");
    expect(response.status).toBe(201);
    const receipt = await readJson<Receipt>(response);
    expect(receipt).toEqual({
      order_id: `ORD-${requestId.slice(0, 8)}`,
      customer_id: "CUST-0005",
      lines: 1,
      total_cents: 3700,
    });
    expect(await countOrdersFor("globex", requestId)).toBe(1);
    expect(await countOrdersFor("acme", requestId)).toBe(0);

    // The public API shows it to globex only.
    expect((await getOrder(receipt.order_id, GLOBEX_TOKEN)).status).toBe(200);
    expect((await getOrder(receipt.order_id)).status).toBe(404);

    // And the internal entrypoint reads it back for globex.
    const read = await env.ORDER_API.fetch(`http://order-api/api/orders/${receipt.order_id}`, {
      headers: { "x-order-ops-account": "globex" },
    });
    expect(read.status).toBe(200);
    expect((await readJson<OrderView>(read)).order_id).toBe(receipt.order_id);
  });

  it.each([
    ["without the header", undefined],
    ["with an invalid account id", "Globex!"],
    ["with an empty account id", ""],
  ])("answers 400 %s and stores nothing", async (_label, account) => {
    const requestId = uniqueRequestId("noheader");
    const response = await internalPost(JSON.stringify(validOrder(requestId)), account);
    expect(response.status).toBe(400);
    expect(await readJson<ErrorBody>(response)).toEqual({
      code: "bad_request",
      message: "internal callers must send a valid x-order-ops-account header",
    });
    expect(await countOrdersFor("acme", requestId)).toBe(0);
    expect(await countOrdersFor("globex", requestId)).toBe(0);
  });

  it.each([
    ["GET", "/nope"],
    ["GET", "/api/nope"],
    ["POST", "/"],
    ["GET", "/api/orders/ORD-1001/items"],
  ])("answers %s %s with the JSON 404 of the public app", async (method, path) => {
    const response = await env.ORDER_API.fetch(`http://order-api${path}`, {
      method,
      headers: { "x-order-ops-account": "acme" },
    });
    expect(response.status).toBe(404);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await readJson<ErrorBody>(response)).toEqual({
      code: "not_found",
      message: `no route for ${method} ${path}`,
    });
  });

  it("does not accept bearer tokens in place of the account header", async () => {
    const requestId = uniqueRequestId("internaltoken");
    const response = await env.ORDER_API.fetch("http://order-api/api/orders", {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${GLOBEX_TOKEN}` },
      body: JSON.stringify(validOrder(requestId)),
    });
    expect(response.status).toBe(400);
    expect(await countOrdersFor("globex", requestId)).toBe(0);
  });

  // A binding passes a body on without a length unless the answer names one;
  // the account's object reads a declared body in one step, an undeclared one
  // chunk by chunk under its size guard.
  it.each([
    ["a created order (201)", () => validOrder(uniqueRequestId("sized")), 201],
    ["a replay (200)", () => validOrder("sized-replay-0001"), 200],
    ["a rejected order (422)", () => validOrder(uniqueRequestId("sized"), { total_cents: 1 }), 422],
    ["a malformed order (422)", () => ({ request_id: "x" }), 422],
  ] as const)("declares the length of its answer to %s", async (_label, order, status) => {
    if (status === 200) await internalPost(JSON.stringify(order()), "acme");
    const response = await internalPost(JSON.stringify(order()), "acme");
    expect(response.status).toBe(status);
    const bytes = new Uint8Array(await response.arrayBuffer());
    expect(bytes.byteLength).toBeGreaterThan(0);
    expect(response.headers.get("content-length")).toBe(String(bytes.byteLength));
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(() => JSON.parse(new TextDecoder().decode(bytes))).not.toThrow();
  });
});
