import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { BOOKMARK_HEADER } from "../../src/http/d1-bookmark";
import { type OrderView, type Receipt, readJson, uniqueRequestId, validOrder } from "../helpers/orders";
import { ACME_TOKEN } from "../helpers/tokens";

// The intake API hands on the D1 bookmark of its write (src/http/d1-bookmark.ts):
// a client that sends it back with its next request reads from a session that
// starts there, so it sees its own order even from a replica.

const BOOKMARK = /^[0-9a-f]+(-[0-9a-f]+)+$/;

function post(order: unknown, carried?: string): Promise<Response> {
  return exports.default.fetch("http://localhost/api/orders", {
    method: "POST",
    headers: {
      authorization: `Bearer ${ACME_TOKEN}`,
      "content-type": "application/json",
      ...(carried ? { [BOOKMARK_HEADER]: carried } : {}),
    },
    body: JSON.stringify(order),
  });
}

function get(orderId: string, carried?: string): Promise<Response> {
  return exports.default.fetch(`http://localhost/api/orders/${encodeURIComponent(orderId)}`, {
    headers: { authorization: `Bearer ${ACME_TOKEN}`, ...(carried ? { [BOOKMARK_HEADER]: carried } : {}) },
  });
}

describe("the intake API's D1 bookmark", () => {
  it("an accepted order hands on a bookmark past its write; a read carrying it finds the order and hands on one no older", async () => {
    const created = await post(validOrder(uniqueRequestId("bookmark")));
    expect(created.status).toBe(201);
    const written = created.headers.get(BOOKMARK_HEADER) ?? "";
    expect(written).toMatch(BOOKMARK);
    const receipt = await readJson<Receipt>(created);

    const read = await get(receipt.order_id, written);
    expect(read.status).toBe(200);
    expect((await readJson<OrderView>(read)).order_id).toBe(receipt.order_id);
    expect((read.headers.get(BOOKMARK_HEADER) ?? "") >= written).toBe(true);
  });

  it("each order moves the bookmark forward, a replay included", async () => {
    const order = validOrder(uniqueRequestId("bookmark-replay"));
    const first = (await post(order)).headers.get(BOOKMARK_HEADER) ?? "";
    const second = await post(validOrder(uniqueRequestId("bookmark-next")), first);
    const afterSecond = second.headers.get(BOOKMARK_HEADER) ?? "";
    expect(afterSecond > first).toBe(true);
    const replay = await post(order, afterSecond);
    expect(replay.status).toBe(200);
    expect((replay.headers.get(BOOKMARK_HEADER) ?? "") >= afterSecond).toBe(true);
  });

  it("a read of an unknown order still hands on a bookmark, and one garbled on the way counts as none", async () => {
    const unknown = await get("ORD-NOPE0000", "not-a-bookmark");
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get(BOOKMARK_HEADER)).toMatch(BOOKMARK);
  });
});
