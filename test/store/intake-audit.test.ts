import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { postOrder, type Receipt, readJson, uniqueRequestId, validOrder, warmUp } from "../helpers/orders";
import { countRows } from "../helpers/rows";
import { GLOBEX_TOKEN } from "../helpers/tokens";

// Every write leaves an audit event: an accepted intake order records who
// placed it, in the same D1 batch as the order itself.
interface AuditRow {
  event_id: string;
  event_type: string;
  actor: string;
  reason: string;
  state_after: string | null;
}

function auditRows(account: string, orderId: string): Promise<AuditRow[]> {
  return env.DB.prepare(
    "SELECT event_id, event_type, actor, reason, state_after FROM audit_events WHERE account = ? AND order_id = ? ORDER BY rowid",
  )
    .bind(account, orderId)
    .all<AuditRow>()
    .then((r) => r.results);
}

beforeAll(warmUp);

describe("intake audit events", () => {
  it("an accepted order gets one order_received event naming the caller", async () => {
    const requestId = uniqueRequestId("audit");
    const receipt = await readJson<Receipt>(await postOrder(validOrder(requestId), { token: GLOBEX_TOKEN }));
    const rows = await auditRows("globex", receipt.order_id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      event_id: `${receipt.order_id}:received`,
      event_type: "order_received",
      actor: "Gus Ops (globex, local dev)",
      reason: `accepted by POST /api/orders with request_id ${requestId}`,
    });
    expect(JSON.parse(rows[0]?.state_after ?? "null")).toMatchObject({ status: "accepted", version: 1 });
  });

  it("an unauthenticated caller is recorded as such", async () => {
    const receipt = await readJson<Receipt>(await postOrder(validOrder(uniqueRequestId("anon"))));
    const rows = await auditRows("acme", receipt.order_id);
    expect(rows.map((r) => r.actor)).toEqual(["unauthenticated intake caller"]);
  });

  it("a replay adds no second event", async () => {
    const order = validOrder(uniqueRequestId("replay"));
    const first = await readJson<Receipt>(await postOrder(order));
    const again = await postOrder(order);
    expect(again.status).toBe(200);
    expect(await auditRows("acme", first.order_id)).toHaveLength(1);
  });

  it("a rejected order leaves no event", async () => {
    const requestId = uniqueRequestId("rejected");
    const response = await postOrder(validOrder(requestId, { total_cents: 9999 }));
    expect(response.status).toBe(422);
    expect(await countRows("SELECT count(*) AS n FROM audit_events WHERE reason LIKE ?", `%${requestId}%`)).toBe(0);
  });

  it("orders sent through ORDER_API record the operator from the actor header", async () => {
    const requestId = uniqueRequestId("actor");
    const response = await env.ORDER_API.fetch("http://order-api/api/orders", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-order-ops-account": "acme",
        "x-order-ops-actor": encodeURIComponent("Tomás via send_orders"),
      },
      body: JSON.stringify(validOrder(requestId)),
    });
    const receipt = await readJson<Receipt>(response);
    expect((await auditRows("acme", receipt.order_id)).map((r) => r.actor)).toEqual(["Tomás via send_orders"]);
  });

  it("audit events cannot be changed or deleted", async () => {
    const receipt = await readJson<Receipt>(await postOrder(validOrder(uniqueRequestId("immutable"))));
    const eventId = `${receipt.order_id}:received`;
    await expect(
      env.DB.prepare("UPDATE audit_events SET actor = 'someone else' WHERE event_id = ?").bind(eventId).run(),
    ).rejects.toThrow(/append-only/);
    await expect(env.DB.prepare("DELETE FROM audit_events WHERE event_id = ?").bind(eventId).run()).rejects.toThrow(
      /append-only/,
    );
    expect((await auditRows("acme", receipt.order_id)).map((r) => r.actor)).toEqual(["unauthenticated intake caller"]);
  });
});

describe("audit identity across accounts", () => {
  it("two accounts posting the same request_id each keep their own order_received event", async () => {
    const order = validOrder(uniqueRequestId("shared"));
    const globex = await readJson<Receipt>(await postOrder(order, { token: GLOBEX_TOKEN }));
    const acme = await readJson<Receipt>(await postOrder(order));
    expect(acme.order_id).toBe(globex.order_id);
    expect((await auditRows("globex", globex.order_id)).map((r) => r.event_type)).toEqual(["order_received"]);
    expect((await auditRows("acme", acme.order_id)).map((r) => r.event_type)).toEqual(["order_received"]);
  });
});
