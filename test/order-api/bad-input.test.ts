import { exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { type ErrorBody, postOrder, postRaw, readJson, uniqueRequestId, validOrder, warmUp } from "../helpers/orders";
import { countOrders } from "../helpers/rows";

// Bad input of every kind gets a precise 4xx, never a 500, and never writes a row.
// Each test compares the whole orders table count before and after (the seed is
// loaded first so the first request's seed load does not count as a change).

beforeAll(warmUp);

async function expectNoWrite(send: () => Promise<Response>): Promise<Response> {
  const before = await countOrders();
  const response = await send();
  // Read the body before counting so the request has fully finished.
  const text = await response.text();
  expect(await countOrders()).toBe(before);
  return new Response(text, { status: response.status, headers: response.headers });
}

describe("malformed JSON", () => {
  it.each([
    ["an unterminated object", "{bad", "Expected property name or '}' in JSON at position 1 (line 1 column 2)"],
    ["an empty body", "", "Unexpected end of JSON input"],
  ])("%s answers 400 malformed_json", async (_label, body, reason) => {
    const response = await expectNoWrite(() => postRaw(body));
    expect(response.status).toBe(400);
    const error = await readJson<ErrorBody>(response);
    expect(error.code).toBe("malformed_json");
    // The reason is the JSON parser's own SyntaxError text.
    expect(error.message).toBe(`request body is not valid JSON (${reason})`);
  });

  it("a truncated valid order answers 400 malformed_json", async () => {
    const json = JSON.stringify(validOrder(uniqueRequestId("trunc")));
    const response = await expectNoWrite(() => postRaw(json.slice(0, -1)));
    expect(response.status).toBe(400);
    expect((await readJson<ErrorBody>(response)).code).toBe("malformed_json");
  });
});

describe("missing or ill-typed fields answer 422 validation_failed naming each field", () => {
  it("an empty object names every required field", async () => {
    const response = await expectNoWrite(() => postRaw("{}"));
    expect(response.status).toBe(422);
    expect(await readJson<ErrorBody>(response)).toEqual({
      code: "validation_failed",
      message: "request body has 6 invalid field(s)",
      errors: [
        "request_id is required",
        "customer_id is required",
        "channel is required",
        "currency is required",
        "lines is required",
        "total_cents is required",
      ],
    });
  });

  it("ill-typed line fields are named by their index", async () => {
    const order = {
      ...validOrder(uniqueRequestId("types")),
      lines: [{ sku: "SKU-5510", quantity: "2", unit_price_cents: 18.5 }],
    };
    const response = await expectNoWrite(() => postOrder(order));
    expect(response.status).toBe(422);
    expect(await readJson<ErrorBody>(response)).toEqual({
      code: "validation_failed",
      message: "request body has 2 invalid field(s)",
      errors: [
        "lines[0].quantity: Invalid input: expected number, received string",
        "lines[0].unit_price_cents: Invalid input: expected int, received number",
      ],
    });
  });

  it("out-of-range values are named", async () => {
    const order = {
      request_id: "has a space",
      customer_id: "",
      channel: "partner",
      currency: "USD",
      lines: [],
      total_cents: -1,
    };
    const response = await expectNoWrite(() => postOrder(order));
    expect(response.status).toBe(422);
    expect(await readJson<ErrorBody>(response)).toEqual({
      code: "validation_failed",
      message: "request body has 4 invalid field(s)",
      errors: [
        "request_id: use letters, digits and . _ : - only",
        "customer_id: Too small: expected string to have >=1 characters",
        "lines: Too small: expected array to have >=1 items",
        "total_cents: Too small: expected number to be >=0",
      ],
    });
  });

  it("a second line's zero quantity is named lines[1].quantity", async () => {
    const order = validOrder(uniqueRequestId("qty0"), {
      lines: [
        { sku: "SKU-5510", quantity: 2, unit_price_cents: 1850 },
        { sku: "SKU-1180", quantity: 0, unit_price_cents: 1200 },
      ],
    });
    const response = await expectNoWrite(() => postOrder(order));
    expect(response.status).toBe(422);
    const error = await readJson<ErrorBody>(response);
    expect(error.code).toBe("validation_failed");
    expect(error.errors).toEqual(["lines[1].quantity: Too small: expected number to be >=1"]);
  });

  it.each([
    ["null", "null", ["body: Invalid input: expected object, received null"]],
    ["an array", "[]", ["body: Invalid input: expected object, received array"]],
    ["a string", '"order"', ["body: Invalid input: expected object, received string"]],
  ])("a JSON %s body answers 422 naming the body", async (_label, body, errors) => {
    const response = await expectNoWrite(() => postRaw(body));
    expect(response.status).toBe(422);
    expect(await readJson<ErrorBody>(response)).toEqual({
      code: "validation_failed",
      message: "request body has 1 invalid field(s)",
      errors,
    });
  });

  it.each([
    [
      "a huge number",
      '{"request_id":"x","customer_id":"CUST-0005","channel":"partner","currency":"USD","lines":[{"sku":"SKU-5510","quantity":1e400,"unit_price_cents":1850}],"total_cents":3700}',
    ],
    [
      "lines as a string",
      '{"request_id":"x","customer_id":"CUST-0005","channel":"partner","currency":"USD","lines":"SKU-5510","total_cents":3700}',
    ],
    [
      "a non-ASCII request_id",
      '{"request_id":"ordre-é","customer_id":"CUST-0005","channel":"partner","currency":"USD","lines":[{"sku":"SKU-5510","quantity":2,"unit_price_cents":1850}],"total_cents":3700}',
    ],
    [
      "101 lines",
      JSON.stringify(
        validOrder("too-many-lines", {
          lines: Array.from({ length: 101 }, () => ({ sku: "SKU-5510", quantity: 1, unit_price_cents: 1850 })),
        }),
      ),
    ],
    ["a request_id of 129 characters", JSON.stringify(validOrder("r".repeat(129)))],
  ])("%s answers 422, not 500", async (_label, body) => {
    const response = await expectNoWrite(() => postRaw(body));
    expect(response.status).toBe(422);
    expect((await readJson<ErrorBody>(response)).code).toBe("validation_failed");
  });
});

describe("body size", () => {
  const LIMIT = 64 * 1024;

  /** A valid order padded with trailing whitespace (still valid JSON) to exactly `bytes` bytes. */
  function paddedOrder(requestId: string, bytes: number): string {
    const json = JSON.stringify(validOrder(requestId));
    return json + " ".repeat(bytes - json.length);
  }

  it("a body of exactly 64 KiB is accepted", async () => {
    const requestId = uniqueRequestId("limit");
    const response = await postRaw(paddedOrder(requestId, LIMIT));
    expect(response.status).toBe(201);
  });

  it("a body one byte over 64 KiB answers 413 payload_too_large", async () => {
    const response = await expectNoWrite(() => postRaw(paddedOrder(uniqueRequestId("over"), LIMIT + 1)));
    expect(response.status).toBe(413);
    expect(await readJson<ErrorBody>(response)).toEqual({
      code: "payload_too_large",
      message: "request body is larger than 65536 bytes",
    });
  });

  it("a streamed body without content-length is counted as it arrives", async () => {
    const bytes = new TextEncoder().encode(paddedOrder(uniqueRequestId("stream"), LIMIT + 4096));
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let offset = 0; offset < bytes.length; offset += 4096)
          controller.enqueue(bytes.slice(offset, offset + 4096));
        controller.close();
      },
    });
    const response = await expectNoWrite(() => postRaw(stream));
    expect(response.status).toBe(413);
    expect((await readJson<ErrorBody>(response)).code).toBe("payload_too_large");
  });
});

describe("content type", () => {
  it.each([
    ["text/plain", "text/plain"],
    ["form data", "application/x-www-form-urlencoded"],
    ["no content-type", ""],
  ])("%s answers 415 even with a valid JSON body", async (_label, contentType) => {
    const response = await expectNoWrite(() => postOrder(validOrder(uniqueRequestId("ctype")), { contentType }));
    expect(response.status).toBe(415);
    expect(await readJson<ErrorBody>(response)).toEqual({
      code: "unsupported_media_type",
      message: "send the body as JSON with the header content-type: application/json",
    });
  });
});

describe("routing", () => {
  it.each(["/api/nope", "/", "/api/orders/ORD-1001/items"])("GET %s answers 404 not_found", async (path) => {
    const response = await expectNoWrite(() => exports.default.fetch(`http://localhost${path}`));
    expect(response.status).toBe(404);
    expect(await readJson<ErrorBody>(response)).toEqual({ code: "not_found", message: `no route for GET ${path}` });
  });

  it.each([
    ["PUT", "/api/orders", "POST"],
    ["GET", "/api/orders", "POST"],
    ["DELETE", "/api/orders", "POST"],
    ["POST", "/api/health", "GET"],
    ["POST", "/health", "GET"],
    ["DELETE", "/api/orders/X", "GET"],
    ["POST", "/api/orders/X", "GET"],
  ])("%s %s answers 405 with Allow: %s", async (method, path, allowed) => {
    const response = await expectNoWrite(() =>
      exports.default.fetch(`http://localhost${path}`, {
        method,
        headers: { "content-type": "application/json" },
        body: method === "GET" ? null : JSON.stringify(validOrder(uniqueRequestId("method"))),
      }),
    );
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe(allowed);
    expect(await readJson<ErrorBody>(response)).toEqual({
      code: "method_not_allowed",
      message: `${method} is not allowed on ${path}; use ${allowed}`,
    });
  });
});
