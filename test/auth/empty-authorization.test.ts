import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { fetchWithEnv } from "../helpers/app-with-env";
import { initializeRequest, mcpHeaders } from "../helpers/mcp-raw";
import {
  type ErrorBody,
  getOrderWith,
  postOrder,
  type Receipt,
  readJson,
  uniqueRequestId,
  validOrder,
} from "../helpers/orders";
import { countOrdersFor } from "../helpers/rows";

// A raw `Authorization: ` header (empty value) on /api must be a 401 like
// `Authorization: Bearer`, never answered as anonymous.
//
// What the runtime does, checked on 2 Dec 2026 with wrangler 4.156.2 and
// workerd 1.20261102.1: `wrangler dev`, then raw bytes over a TCP socket
// (node:net), `Authorization: \r\n` (also `Authorization:\r\n` and
// `Authorization:    \r\n`) to /api/orders, /mcp, /api/approvals and /api/audit,
// with a temporary console.log of the Worker's request headers. The Worker never
// saw an Authorization header, neither on wrangler's public port nor when the
// bytes went straight to the inner workerd socket (skipping wrangler's proxy):
// /api/orders answered 201 as the public intake account, the other three 401
// (they have no anonymous access). In the same run an empty `X-Probe: ` header
// did arrive, empty, while empty `Cookie: ` and `Proxy-Authorization: ` did not.
// So workerd itself removes an empty Authorization before any Worker code runs,
// and `exports.default.fetch` below goes through the same removal.
//
// The Worker cannot refuse what it never receives. What it can do, and does, is
// refuse the header whenever it arrives: the in-process tests call the Hono app
// directly, with no runtime hop, so the header is there. If a runtime update
// starts delivering the header, the first test here fails and the 401 path
// takes over. The exposure meanwhile is what an anonymous caller gets: the
// PUBLIC_INTAKE_ACCOUNT, which only development sets.

const REFUSED = { code: "unauthorized", message: "the Authorization header must be `Bearer <token>`" };

describe("an empty Authorization header through the runtime", () => {
  it("never reaches the Worker: /api answers exactly as with no header at all", async () => {
    const { order_id } = await readJson<Receipt>(await postOrder(validOrder(uniqueRequestId("empty-auth"))));
    const anonymous = await getOrderWith(order_id, {});
    const empty = await getOrderWith(order_id, { authorization: "" });
    const blank = await getOrderWith(order_id, { authorization: "   " });
    expect([anonymous.status, empty.status, blank.status]).toEqual([200, 200, 200]);
    expect(await empty.text()).toBe(await anonymous.text());
  });

  it("the same request is refused in-process and accepted through the runtime: the hop drops the header", async () => {
    const build = (requestId: string) =>
      new Request("http://localhost/api/orders", {
        method: "POST",
        headers: { "content-type": "application/json", authorization: "" },
        body: JSON.stringify(validOrder(requestId)),
      });
    expect(build("x").headers.has("authorization")).toBe(true);
    expect((await fetchWithEnv(build(uniqueRequestId("hop-direct")))).status).toBe(401);
    expect((await exports.default.fetch(build(uniqueRequestId("hop-runtime")))).status).toBe(201);
  });

  it.each([
    [
      "/mcp",
      () =>
        new Request("http://localhost/mcp", {
          method: "POST",
          headers: { ...mcpHeaders(), authorization: "" },
          body: JSON.stringify(initializeRequest(1, "2025-06-18")),
        }),
    ],
    ["/api/approvals", () => new Request("http://localhost/api/approvals", { headers: { authorization: "" } })],
    ["/api/audit", () => new Request("http://localhost/api/audit", { headers: { authorization: "" } })],
  ])("%s, which has no anonymous access, answers 401 either way", async (_path, build) => {
    expect((await exports.default.fetch(build())).status).toBe(401);
  });
});

describe("an empty Authorization header that does arrive (the app called without a runtime hop)", () => {
  it("/api: 401 with the challenge, nothing stored", async () => {
    const requestId = uniqueRequestId("empty-auth-direct");
    const response = await fetchWithEnv(
      new Request("http://localhost/api/orders", {
        method: "POST",
        headers: { "content-type": "application/json", authorization: "" },
        body: JSON.stringify(validOrder(requestId)),
      }),
    );
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toBe('Bearer realm="order-ops-edge"');
    expect(await readJson<ErrorBody>(response)).toEqual(REFUSED);
    expect(await countOrdersFor("acme", requestId)).toBe(0);
  });

  it.each(["", "   "])("/api, /mcp, /api/approvals and /api/audit all answer %j with 401", async (value) => {
    const requests = [
      new Request("http://localhost/api/orders/ORD-1001", { headers: { authorization: value } }),
      new Request("http://localhost/mcp", {
        method: "POST",
        headers: { ...mcpHeaders(), authorization: value },
        body: JSON.stringify(initializeRequest(1, "2025-06-18")),
      }),
      new Request("http://localhost/api/approvals", { headers: { authorization: value } }),
      new Request("http://localhost/api/audit", { headers: { authorization: value } }),
    ];
    for (const request of requests) expect(request.headers.has("authorization")).toBe(true);
    const statuses = await Promise.all(requests.map(async (request) => (await fetchWithEnv(request)).status));
    expect(statuses).toEqual([401, 401, 401, 401]);
  });
});
