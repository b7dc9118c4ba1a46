import { describe, expect, it } from "vitest";
import { bindingIntakeCaller } from "../../src/auth/intake-callers";
import {
  type ErrorBody,
  getOrder,
  getOrderWith,
  postOrder,
  type Receipt,
  readJson,
  uniqueRequestId,
  validOrder,
} from "../helpers/orders";
import { countOrdersFor } from "../helpers/rows";
import { ACME_APPROVER_TOKEN, ACME_TOKEN, GLOBEX_TOKEN } from "../helpers/tokens";

// Who may call the public /api/orders (publicIntakeCaller): an MCP token, or
// nobody at all (the public intake account); anything else is a 401 that
// stores nothing.

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

  it.each(headers)(
    "%s on GET /api/orders/:id answers 401, even for an order of the public account",
    async (_label, authorization) => {
      const created = await postOrder(validOrder(uniqueRequestId("badauthget")));
      const { order_id } = await readJson<Receipt>(created);
      expect((await getOrder(order_id)).status).toBe(200);
      const response = await getOrderWith(order_id, { authorization });
      expect(response.status).toBe(401);
      expect(await readJson<ErrorBody>(response)).toEqual(malformed);
    },
  );

  it("a lowercase bearer scheme is still a bearer token", async () => {
    const requestId = uniqueRequestId("lowerbearer");
    const response = await postOrder(validOrder(requestId), { authorization: `bearer ${GLOBEX_TOKEN}` });
    expect(response.status).toBe(201);
    expect(await countOrdersFor("globex", requestId)).toBe(1);
  });
});

describe("the binding's caller (bindingIntakeCaller)", () => {
  const request = (account: string | undefined) =>
    new Request("http://order-api/api/orders", {
      headers: account === undefined ? {} : { "x-order-ops-account": account },
    });
  const config = {} as Parameters<typeof bindingIntakeCaller>[0];
  const refused = {
    ok: false,
    error: { code: "bad_request", message: "internal callers must send a valid x-order-ops-account header" },
  };

  // Valid account headers are remembered, so each is checked once: what is
  // remembered must never let an invalid one through, however they interleave.
  it("answers the same for a header however often it is sent, valid or not", async () => {
    for (let round = 0; round < 3; round++) {
      expect(await bindingIntakeCaller(config, request("globex"))).toEqual({
        ok: true,
        value: { account: "globex", actor: "ORDER_API caller" },
      });
      expect(await bindingIntakeCaller(config, request("Globex!"))).toEqual(refused);
      expect(await bindingIntakeCaller(config, request("glo bex"))).toEqual(refused);
      expect(await bindingIntakeCaller(config, request(""))).toEqual(refused);
      expect(await bindingIntakeCaller(config, request(undefined))).toEqual(refused);
    }
  });
});
