import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  ACME_APPROVER_TOKEN,
  ACME_TOKEN,
  countOrdersFor,
  countOrdersWithId,
  getOrder,
  getOrderWith,
  GLOBEX_TOKEN,
  postOrder,
  randomPrefix,
  readJson,
  uniqueRequestId,
  validOrder,
  type ErrorBody,
  type Receipt,
} from "../helpers/orders";

// Accounts never see each other's orders, callers are authenticated, and the
// internal ORDER_API entrypoint acts for the account named in its header.

interface View {
  order_id: string;
  customer_id: string;
  total_cents: number;
}

describe("reading another account's order", () => {
  it("answers a 404 byte-identical to the one for an id that does not exist", async () => {
    // Order ids are predictable (`ORD-` + the first 8 characters of request_id), so
    // we can ask for the very same id X twice: first while X does not exist at all,
    // then after globex has created X. Same id, same caller, so any difference
    // between the two answers (status, headers, body) would reveal that X exists.
    const prefix = randomPrefix();
    const orderId = `ORD-${prefix}`;
    const unknownForAcme = await getOrder(orderId, ACME_TOKEN);
    const unknownAnonymous = await getOrder(orderId);
    const unknownStatus = unknownForAcme.status;
    const unknownHeaders = [...unknownForAcme.headers];
    const unknownBody = await unknownForAcme.text();
    expect(unknownStatus).toBe(404);
    expect(JSON.parse(unknownBody)).toEqual({ code: "not_found", message: `order ${orderId} not found` });
    expect(await unknownAnonymous.text()).toBe(unknownBody);

    const created = await postOrder(validOrder(`${prefix}-globex`), { token: GLOBEX_TOKEN });
    expect(created.status).toBe(201);
    expect((await readJson<Receipt>(created)).order_id).toBe(orderId);

    const ownerRead = await getOrder(orderId, GLOBEX_TOKEN);
    expect(ownerRead.status).toBe(200);
    expect((await readJson<View>(ownerRead)).order_id).toBe(orderId);

    for (const token of [ACME_TOKEN, undefined]) {
      const foreign = await getOrder(orderId, token);
      expect(foreign.status).toBe(unknownStatus);
      expect([...foreign.headers]).toEqual(unknownHeaders);
      expect(await foreign.text()).toBe(unknownBody);
    }
  });

  it("a seeded globex order is invisible to acme and visible to globex", async () => {
    // ORD-2001 is globex's first order in seed/operations.json.
    const asAcme = await getOrder("ORD-2001", ACME_TOKEN);
    expect(asAcme.status).toBe(404);
    expect(await readJson<ErrorBody>(asAcme)).toEqual({ code: "not_found", message: "order ORD-2001 not found" });
    const asGlobex = await getOrder("ORD-2001", GLOBEX_TOKEN);
    expect(asGlobex.status).toBe(200);
    expect((await readJson<View>(asGlobex)).order_id).toBe("ORD-2001");
  });
});

describe("the same request_id in two accounts", () => {
  it("creates two separate orders under the same id, each account reading its own", async () => {
    const requestId = uniqueRequestId("shared");
    const acmeOrder = validOrder(requestId);
    const globexOrder = validOrder(requestId, {
      customer_id: "CUST-0001",
      channel: "web",
      lines: [{ sku: "SKU-1180", quantity: 1, unit_price_cents: 1200 }],
      total_cents: 1200,
    });

    const acmeCreated = await postOrder(acmeOrder, { token: ACME_TOKEN });
    const globexCreated = await postOrder(globexOrder, { token: GLOBEX_TOKEN });
    // A different payload under the same key is not a conflict across accounts.
    expect([acmeCreated.status, globexCreated.status]).toEqual([201, 201]);
    const acmeId = (await readJson<Receipt>(acmeCreated)).order_id;
    const globexId = (await readJson<Receipt>(globexCreated)).order_id;
    // Order ids are per account: both get the short id.
    expect([acmeId, globexId]).toEqual([`ORD-${requestId.slice(0, 8)}`, `ORD-${requestId.slice(0, 8)}`]);
    expect(await countOrdersFor("acme", requestId)).toBe(1);
    expect(await countOrdersFor("globex", requestId)).toBe(1);

    // The same id reads as each account's own order.
    const acmeView = await getOrder(acmeId, ACME_TOKEN);
    expect(acmeView.status).toBe(200);
    expect(await readJson<View>(acmeView)).toMatchObject({ order_id: acmeId, customer_id: "CUST-0005", total_cents: 3700 });
    const anonymousView = await getOrder(acmeId);
    expect(await readJson<View>(anonymousView)).toMatchObject({ order_id: acmeId, customer_id: "CUST-0005", total_cents: 3700 });
    const globexView = await getOrder(globexId, GLOBEX_TOKEN);
    expect(globexView.status).toBe(200);
    expect(await readJson<View>(globexView)).toMatchObject({ order_id: globexId, customer_id: "CUST-0001", total_cents: 1200 });

    // Replays stay within their account too.
    const acmeReplay = await postOrder(acmeOrder, { token: ACME_TOKEN });
    expect(acmeReplay.status).toBe(200);
    expect((await readJson<Receipt>(acmeReplay)).order_id).toBe(acmeId);
    const globexReplay = await postOrder(globexOrder, { token: GLOBEX_TOKEN });
    expect(globexReplay.status).toBe(200);
    expect((await readJson<Receipt>(globexReplay)).order_id).toBe(globexId);
  });

  it("without a token the public intake account (acme) is used", async () => {
    const requestId = uniqueRequestId("anon");
    expect((await postOrder(validOrder(requestId))).status).toBe(201);
    expect(await countOrdersFor("acme", requestId)).toBe(1);
    expect(await countOrdersFor("globex", requestId)).toBe(0);
  });
});

describe("order ids are per account", () => {
  const globexOrder = (requestId: string) =>
    validOrder(requestId, { customer_id: "CUST-0001", channel: "web", lines: [{ sku: "SKU-1180", quantity: 1, unit_price_cents: 1200 }], total_cents: 1200 });

  it("another account holding ORD-<prefix> does not push an order off its short id", async () => {
    const prefix = randomPrefix();
    const acme = await postOrder(validOrder(`${prefix}-acme`), { token: ACME_TOKEN });
    expect(acme.status).toBe(201);
    expect((await readJson<Receipt>(acme)).order_id).toBe(`ORD-${prefix}`);

    const globex = await postOrder(globexOrder(`${prefix}-globex`), { token: GLOBEX_TOKEN });
    expect(globex.status).toBe(201);
    expect((await readJson<Receipt>(globex)).order_id).toBe(`ORD-${prefix}`);

    // Each account reads its own ORD-<prefix>.
    expect(await readJson<View>(await getOrder(`ORD-${prefix}`, ACME_TOKEN))).toMatchObject({ customer_id: "CUST-0005", total_cents: 3700 });
    expect(await readJson<View>(await getOrder(`ORD-${prefix}`, GLOBEX_TOKEN))).toMatchObject({ customer_id: "CUST-0001", total_cents: 1200 });
    expect(await countOrdersWithId("acme", `ORD-${prefix}`)).toBe(1);
    expect(await countOrdersWithId("globex", `ORD-${prefix}`)).toBe(1);
  });

  it("a second order with the prefix falls back to its full request_id in each account alike", async () => {
    const prefix = randomPrefix();
    const ids: string[] = [];
    for (const [order, token] of [
      [validOrder(`${prefix}-a1`), ACME_TOKEN],
      [globexOrder(`${prefix}-g1`), GLOBEX_TOKEN],
      [validOrder(`${prefix}-a2`), ACME_TOKEN],
      [globexOrder(`${prefix}-g2`), GLOBEX_TOKEN],
    ] as const) {
      const response = await postOrder(order, { token });
      expect(response.status).toBe(201);
      ids.push((await readJson<Receipt>(response)).order_id);
    }
    expect(ids).toEqual([`ORD-${prefix}`, `ORD-${prefix}`, `ORD-${prefix}-a2`, `ORD-${prefix}-g2`]);
    // A full-request_id id exists in its own account only.
    expect((await getOrder(`ORD-${prefix}-g2`, ACME_TOKEN)).status).toBe(404);
    expect((await getOrder(`ORD-${prefix}-a2`, GLOBEX_TOKEN)).status).toBe(404);
  });

  it("globex can hold ORD-1001 while acme's seeded ORD-1001 stays untouched", async () => {
    // request_id "1001" maps to ORD-1001, which the seed gives acme (source operations).
    const seededBefore = await env.DB.prepare("SELECT * FROM orders WHERE account = 'acme' AND order_id = 'ORD-1001'").first();
    expect(seededBefore).toMatchObject({ source: "operations", customer_id: "CUST-0001", total_cents: 6600 });

    const response = await postOrder(validOrder("1001"), { token: GLOBEX_TOKEN });
    expect(response.status).toBe(201);
    expect(await readJson<Receipt>(response)).toEqual({ order_id: "ORD-1001", customer_id: "CUST-0005", lines: 1, total_cents: 3700 });

    expect(await env.DB.prepare("SELECT * FROM orders WHERE account = 'acme' AND order_id = 'ORD-1001'").first()).toEqual(seededBefore);
    const holders = await env.DB.prepare("SELECT account, source, request_id FROM orders WHERE order_id = 'ORD-1001' ORDER BY account").all();
    expect(holders.results).toEqual([
      { account: "acme", source: "operations", request_id: null },
      { account: "globex", source: "intake", request_id: "1001" },
    ]);
    expect(await readJson<View>(await getOrder("ORD-1001", GLOBEX_TOKEN))).toMatchObject({ order_id: "ORD-1001", customer_id: "CUST-0005", total_cents: 3700 });
    expect(await readJson<View>(await getOrder("ORD-1001", ACME_TOKEN))).toMatchObject({ order_id: "ORD-1001", customer_id: "CUST-0001", total_cents: 6600 });
  });
});

describe("authentication", () => {
  const unauthorized = { code: "unauthorized", message: "the bearer token is not valid for this API" };

  it.each([
    ["an unknown bearer token", "not-a-real-token"],
    ["an approver token", ACME_APPROVER_TOKEN],
    ["a prefix of a valid token", ACME_TOKEN.slice(0, -1)],
  ])("%s on POST /api/orders answers 401 and stores nothing", async (_label, token) => {
    const requestId = uniqueRequestId("auth");
    const response = await postOrder(validOrder(requestId), { token });
    expect(response.status).toBe(401);
    expect(await readJson<ErrorBody>(response)).toEqual(unauthorized);
    expect(await countOrdersFor("acme", requestId)).toBe(0);
    expect(await countOrdersFor("globex", requestId)).toBe(0);
  });

  it.each([
    ["an unknown bearer token", "not-a-real-token"],
    ["an approver token", ACME_APPROVER_TOKEN],
  ])("%s on GET /api/orders/:id answers 401, even for an existing order", async (_label, token) => {
    const created = await postOrder(validOrder(uniqueRequestId("authget")));
    const { order_id } = await readJson<Receipt>(created);
    const response = await getOrder(order_id, token);
    expect(response.status).toBe(401);
    expect(await readJson<ErrorBody>(response)).toEqual(unauthorized);
  });
});

describe("a present but malformed Authorization header", () => {
  // Only a missing header means "anonymous" (the public intake account); a header
  // that is there but unusable is a failed login.
  const malformed = { code: "unauthorized", message: "the Authorization header must be `Bearer <token>`" };
  const headers = [
    ["another scheme with a valid token", `Token ${GLOBEX_TOKEN}`],
    ["Bearer without a token", "Bearer"],
    ["Bearer with a trailing space only", "Bearer "],
    ["Bearer with two words", "Bearer a b"],
    ["Basic credentials", "Basic xyz"],
    ["a bare valid token", ACME_TOKEN],
  ];

  it.each(headers)("%s on POST /api/orders answers 401 and stores nothing", async (_label, authorization) => {
    const requestId = uniqueRequestId("badauth");
    const response = await postOrder(validOrder(requestId), { authorization });
    expect(response.status).toBe(401);
    expect(await readJson<ErrorBody>(response)).toEqual(malformed);
    expect(await countOrdersFor("acme", requestId)).toBe(0);
    expect(await countOrdersFor("globex", requestId)).toBe(0);
  });

  it.each(headers)("%s on GET /api/orders/:id answers 401, even for an order of the public account", async (_label, authorization) => {
    const created = await postOrder(validOrder(uniqueRequestId("badauthget")));
    const { order_id } = await readJson<Receipt>(created);
    expect((await getOrder(order_id)).status).toBe(200);
    const response = await getOrderWith(order_id, { authorization });
    expect(response.status).toBe(401);
    expect(await readJson<ErrorBody>(response)).toEqual(malformed);
  });

  it("a lowercase bearer scheme is still a bearer token", async () => {
    const requestId = uniqueRequestId("lowerbearer");
    const response = await postOrder(validOrder(requestId), { authorization: `bearer ${GLOBEX_TOKEN}` });
    expect(response.status).toBe(201);
    expect(await countOrdersFor("globex", requestId)).toBe(1);
  });
});

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
    expect(receipt).toEqual({ order_id: `ORD-${requestId.slice(0, 8)}`, customer_id: "CUST-0005", lines: 1, total_cents: 3700 });
    expect(await countOrdersFor("globex", requestId)).toBe(1);
    expect(await countOrdersFor("acme", requestId)).toBe(0);

    // The public API shows it to globex only.
    expect((await getOrder(receipt.order_id, GLOBEX_TOKEN)).status).toBe(200);
    expect((await getOrder(receipt.order_id)).status).toBe(404);

    // And the internal entrypoint reads it back for globex.
    const read = await env.ORDER_API.fetch(`http://order-api/api/orders/${receipt.order_id}`, { headers: { "x-order-ops-account": "globex" } });
    expect(read.status).toBe(200);
    expect((await readJson<View>(read)).order_id).toBe(receipt.order_id);
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
    const response = await env.ORDER_API.fetch(`http://order-api${path}`, { method, headers: { "x-order-ops-account": "acme" } });
    expect(response.status).toBe(404);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await readJson<ErrorBody>(response)).toEqual({ code: "not_found", message: `no route for ${method} ${path}` });
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
});
