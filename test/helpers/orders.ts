import { env, exports } from "cloudflare:workers";
import { expect } from "vitest";
import { accountDatabase, readyDatabase } from "../../src/store/databases";

/** The JSON body of every error response (see errorBody in src/core/errors.ts). */
export interface ErrorBody {
  code: string;
  message: string;
  errors?: string[];
}

export interface Receipt {
  order_id: string;
  customer_id: string;
  lines: number;
  total_cents: number;
}

/** The fields of GET /api/orders/:id the tests read. */
export interface OrderView {
  order_id: string;
  customer_id: string;
  total_cents: number;
}

export interface OrderLineInput {
  sku: string;
  quantity: number;
  unit_price_cents: number;
}

export interface OrderInput {
  request_id: string;
  customer_id: string;
  channel: string;
  currency: string;
  lines: OrderLineInput[];
  total_cents: number;
}

/**
 * An 8-character random prefix. Order ids are `ORD-` + the first 8 characters
 * of the request_id, so a random prefix keeps every test's order ids its own
 * even though D1 is shared between the tests of a file.
 */
export function randomPrefix(): string {
  return crypto.randomUUID().replace(/-/g, "").slice(0, 8);
}

/** A request_id no other test uses, whose order id is `ORD-<first 8 chars>`. */
export function uniqueRequestId(label: string): string {
  return `${randomPrefix()}-${label}`;
}

/** The order the seed's curl example sends: valid against seed/catalog.json and seed/customers.json. */
export function validOrder(requestId: string, overrides: Partial<OrderInput> = {}): OrderInput {
  return {
    request_id: requestId,
    customer_id: "CUST-0005",
    channel: "partner",
    currency: "USD",
    lines: [{ sku: "SKU-5510", quantity: 2, unit_price_cents: 1850 }],
    total_cents: 3700,
    ...overrides,
  };
}

export interface PostOptions {
  token?: string;
  /** A raw Authorization header value, sent as is; wins over `token`. */
  authorization?: string;
  contentType?: string;
}

function authorizationHeader(options: { token?: string; authorization?: string }): Record<string, string> {
  if (options.authorization !== undefined) return { authorization: options.authorization };
  if (options.token !== undefined) return { authorization: `Bearer ${options.token}` };
  return {};
}

/** POST /api/orders on the public Worker with a raw (already serialized) body. */
export function postRaw(body: BodyInit | null, options: PostOptions = {}): Promise<Response> {
  const headers: Record<string, string> = authorizationHeader(options);
  const contentType = options.contentType ?? "application/json";
  if (contentType !== "") headers["content-type"] = contentType;
  return exports.default.fetch("http://localhost/api/orders", { method: "POST", headers, body });
}

export function postOrder(order: unknown, options: PostOptions = {}): Promise<Response> {
  return postRaw(JSON.stringify(order), options);
}

export function getOrder(orderId: string, token?: string): Promise<Response> {
  return getOrderWith(orderId, token === undefined ? {} : { token });
}

/** GET /api/orders/:id with a bearer token or a raw Authorization header value. */
export function getOrderWith(orderId: string, options: { token?: string; authorization?: string }): Promise<Response> {
  return exports.default.fetch(`http://localhost/api/orders/${encodeURIComponent(orderId)}`, {
    headers: authorizationHeader(options),
  });
}

export async function readJson<T>(response: Response): Promise<T> {
  return (await response.json()) as T;
}

/**
 * Opens the order database the way the Worker does, which loads the demo operations dataset once (DEMO_DATA is on in
 * tests).
 */
export async function warmUp(): Promise<void> {
  await readyDatabase(accountDatabase(env, "acme"));
}

/** After a file's tests, the database must still satisfy every invariant (src/store/invariants.ts). */
export async function expectInvariantsHold(): Promise<void> {
  const { checkInvariants, describeViolations } = await import("../../src/store/invariants");
  expect(describeViolations(await checkInvariants(env.DB))).toEqual([]);
}
