import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { BOOKMARK_HEADER } from "../../src/http/d1-bookmark";
import {
  type ErrorBody,
  getOrder,
  type OrderView,
  postOrder,
  type Receipt,
  randomPrefix,
  readJson,
  uniqueRequestId,
  validOrder,
} from "../helpers/orders";
import { countOrdersFor, countOrdersWithId } from "../helpers/rows";
import { ACME_TOKEN, GLOBEX_TOKEN } from "../helpers/tokens";

// Accounts never see each other's orders, and order ids are per account.
// Caller authentication is in test/auth/intake-callers.test.ts, the internal
// entrypoint in entrypoint.test.ts.

/**
 * Every header but the D1 bookmark, which is the whole database's position:
 * any write of any account moves it (globex's order below does), whatever
 * the id read. It is there on both answers.
 */
function headersBesideBookmark(response: Response): [string, string][] {
  expect(response.headers.get(BOOKMARK_HEADER)).toMatch(/^[0-9a-f]+(-[0-9a-f]+)+$/);
  return [...response.headers].filter(([name]) => name !== BOOKMARK_HEADER);
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
    const unknownHeaders = headersBesideBookmark(unknownForAcme);
    const unknownBody = await unknownForAcme.text();
    expect(unknownStatus).toBe(404);
    expect(JSON.parse(unknownBody)).toEqual({ code: "not_found", message: `order ${orderId} not found` });
    expect(await unknownAnonymous.text()).toBe(unknownBody);

    const created = await postOrder(validOrder(`${prefix}-globex`), { token: GLOBEX_TOKEN });
    expect(created.status).toBe(201);
    expect((await readJson<Receipt>(created)).order_id).toBe(orderId);

    const ownerRead = await getOrder(orderId, GLOBEX_TOKEN);
    expect(ownerRead.status).toBe(200);
    expect((await readJson<OrderView>(ownerRead)).order_id).toBe(orderId);

    for (const token of [ACME_TOKEN, undefined]) {
      const foreign = await getOrder(orderId, token);
      expect(foreign.status).toBe(unknownStatus);
      expect(headersBesideBookmark(foreign)).toEqual(unknownHeaders);
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
    expect((await readJson<OrderView>(asGlobex)).order_id).toBe("ORD-2001");
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
    expect(await readJson<OrderView>(acmeView)).toMatchObject({
      order_id: acmeId,
      customer_id: "CUST-0005",
      total_cents: 3700,
    });
    const anonymousView = await getOrder(acmeId);
    expect(await readJson<OrderView>(anonymousView)).toMatchObject({
      order_id: acmeId,
      customer_id: "CUST-0005",
      total_cents: 3700,
    });
    const globexView = await getOrder(globexId, GLOBEX_TOKEN);
    expect(globexView.status).toBe(200);
    expect(await readJson<OrderView>(globexView)).toMatchObject({
      order_id: globexId,
      customer_id: "CUST-0001",
      total_cents: 1200,
    });

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
    validOrder(requestId, {
      customer_id: "CUST-0001",
      channel: "web",
      lines: [{ sku: "SKU-1180", quantity: 1, unit_price_cents: 1200 }],
      total_cents: 1200,
    });

  it("another account holding ORD-<prefix> does not push an order off its short id", async () => {
    const prefix = randomPrefix();
    const acme = await postOrder(validOrder(`${prefix}-acme`), { token: ACME_TOKEN });
    expect(acme.status).toBe(201);
    expect((await readJson<Receipt>(acme)).order_id).toBe(`ORD-${prefix}`);

    const globex = await postOrder(globexOrder(`${prefix}-globex`), { token: GLOBEX_TOKEN });
    expect(globex.status).toBe(201);
    expect((await readJson<Receipt>(globex)).order_id).toBe(`ORD-${prefix}`);

    // Each account reads its own ORD-<prefix>.
    expect(await readJson<OrderView>(await getOrder(`ORD-${prefix}`, ACME_TOKEN))).toMatchObject({
      customer_id: "CUST-0005",
      total_cents: 3700,
    });
    expect(await readJson<OrderView>(await getOrder(`ORD-${prefix}`, GLOBEX_TOKEN))).toMatchObject({
      customer_id: "CUST-0001",
      total_cents: 1200,
    });
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
    const seededBefore = await env.DB.prepare(
      "SELECT * FROM orders WHERE account = 'acme' AND order_id = 'ORD-1001'",
    ).first();
    expect(seededBefore).toMatchObject({ source: "operations", customer_id: "CUST-0001", total_cents: 6600 });

    const response = await postOrder(validOrder("1001"), { token: GLOBEX_TOKEN });
    expect(response.status).toBe(201);
    expect(await readJson<Receipt>(response)).toEqual({
      order_id: "ORD-1001",
      customer_id: "CUST-0005",
      lines: 1,
      total_cents: 3700,
    });

    expect(
      await env.DB.prepare("SELECT * FROM orders WHERE account = 'acme' AND order_id = 'ORD-1001'").first(),
    ).toEqual(seededBefore);
    const holders = await env.DB.prepare(
      "SELECT account, source, request_id FROM orders WHERE order_id = 'ORD-1001' ORDER BY account",
    ).all();
    expect(holders.results).toEqual([
      { account: "acme", source: "operations", request_id: null },
      { account: "globex", source: "intake", request_id: "1001" },
    ]);
    expect(await readJson<OrderView>(await getOrder("ORD-1001", GLOBEX_TOKEN))).toMatchObject({
      order_id: "ORD-1001",
      customer_id: "CUST-0005",
      total_cents: 3700,
    });
    expect(await readJson<OrderView>(await getOrder("ORD-1001", ACME_TOKEN))).toMatchObject({
      order_id: "ORD-1001",
      customer_id: "CUST-0001",
      total_cents: 6600,
    });
  });
});
