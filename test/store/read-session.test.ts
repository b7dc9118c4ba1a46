import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { D1AccountOrders } from "../../src/store/account-orders";
import { AccountReadSession, AT_PRIMARY } from "../../src/store/read-session";
import { insertFreshOrder } from "../helpers/fresh-orders";

// A request's D1 reads go through one session (src/store/read-session.ts).
// wrangler dev has no replicas, so these tests show where each session starts
// (what a replica would have to have caught up with) and which bookmark the
// request hands on; the bookmarks themselves are local D1's real ones.

/** The test database, recording where every session it opens starts. */
function watchedDatabase(): { db: D1Database; starts: string[] } {
  const starts: string[] = [];
  const db = new Proxy(env.DB, {
    get(target, property) {
      if (property === "withSession")
        return (start: string) => {
          starts.push(start);
          return target.withSession(start);
        };
      const value = Reflect.get(target, property) as unknown;
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { db, starts };
}

const BOOKMARK = /^[0-9a-f]+(-[0-9a-f]+)+$/;

describe("a request's read session", () => {
  it("a write through the session hands on a bookmark past it, and a later read that starts there sees the write", async () => {
    const { db, starts } = watchedDatabase();
    const writing = new AccountReadSession(db, undefined);
    const simulated = await new D1AccountOrders(writing, "acme").simulateFailure("read-session test");
    const handed = writing.nextBookmark();
    expect(handed).toMatch(BOOKMARK);

    const reading = new AccountReadSession(db, handed);
    const details = await new D1AccountOrders(reading, "acme").details(simulated.order_id);
    expect(details?.order_id).toBe(simulated.order_id);
    // The writer started at the primary (it carried nothing); the reader from the writer's bookmark.
    expect(starts).toEqual([AT_PRIMARY, handed]);
    expect((reading.nextBookmark() ?? "") >= (handed ?? "")).toBe(true);
  });

  it("several reads of one request share one session, and its bookmark only moves forward", async () => {
    const orderId = await insertFreshOrder({ exception: "fraud_review" });
    const { db, starts } = watchedDatabase();
    const reads = new AccountReadSession(db, undefined);
    const orders = new D1AccountOrders(reads, "acme");
    await orders.status(orderId);
    const first = reads.nextBookmark() ?? "";
    await orders.details(orderId);
    await orders.exceptions();
    expect(starts).toEqual([AT_PRIMARY]);
    expect((reads.nextBookmark() ?? "") >= first).toBe(true);
  });

  it("after a call to the account's object the next read starts at the primary, and until it runs the request hands on the primary", async () => {
    const orderId = await insertFreshOrder({ exception: "fraud_review" });
    const { db, starts } = watchedDatabase();
    const carried = new AccountReadSession(env.DB, undefined);
    await new D1AccountOrders(carried, "acme").status(orderId);
    const bookmark = carried.nextBookmark();

    const reads = new AccountReadSession(db, bookmark);
    const orders = new D1AccountOrders(reads, "acme");
    await orders.status(orderId);
    reads.objectCalled();
    expect(reads.nextBookmark()).toBe(AT_PRIMARY);
    await orders.details(orderId);
    expect(starts).toEqual([bookmark, AT_PRIMARY]);
    expect(reads.nextBookmark()).toMatch(BOOKMARK);
    expect((reads.nextBookmark() ?? "") >= (bookmark ?? "")).toBe(true);
  });

  it("a request that reads nothing hands back what it carried, and nothing when it carried nothing", () => {
    expect(new AccountReadSession(env.DB, undefined).nextBookmark()).toBeUndefined();
    expect(new AccountReadSession(env.DB, AT_PRIMARY).nextBookmark()).toBe(AT_PRIMARY);
    const bookmark = "00000000-00000001-00000000-00000000000000000000000000000000";
    expect(new AccountReadSession(env.DB, bookmark).nextBookmark()).toBe(bookmark);
  });
});
