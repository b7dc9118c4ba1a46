// The bench's floor Worker (bench/floor): started beside the project under
// the same `wrangler dev`, and addressed on workerd's entry port by
// miniflare's routing header. wrangler's proxy has a router of its own that
// consumes that header, and a second config's routes are not served, so the
// floor is measured on the entry port only.

/** `wrangler dev` arguments that start the floor beside the project; the project stays the primary Worker. */
export const WITH_FLOOR = ["-c", "wrangler.toml", "-c", "bench/floor/wrangler.toml"] as const;

const FLOOR_WORKER = "order-ops-floor";

/**
 * The two isolates on workerd's inspector, and how each is told apart in its
 * own global scope: the floor sets `orderOpsFloor` when it loads.
 */
export const PROJECT_ISOLATE = {
  isolate: "core:user:order-ops-edge",
  marker: 'typeof orderOpsFloor === "undefined"',
} as const;
export const FLOOR_ISOLATE = {
  isolate: `core:user:${FLOOR_WORKER}`,
  marker: 'typeof orderOpsFloor !== "undefined"',
} as const;
const ROUTE_TO_FLOOR = { "MF-Route-Override": FLOOR_WORKER };

/** How the floor's object sends each order (bench/floor/worker.ts). */
export type FloorWay = "binding" | "direct" | "binding-nodb" | "binding-chained";

export interface FloorOrder {
  readonly request_id: string;
  readonly customer_id: string;
  readonly channel: string;
  readonly currency: string;
  readonly lines: readonly { sku: string; quantity: number; unit_price_cents: number }[];
  readonly total_cents: number;
}

export interface Floor {
  /** GET /ok: a route that answers `ok`. */
  ok(): Promise<void>;
  /** GET /orders/:id: one D1 read by id. */
  read(): Promise<void>;
  /** POST /mcp: the SDK's cheapest tool call that reads D1 once (tools/call read_order, protocol 2025-11-25). */
  mcpRead(): Promise<void>;
  /** PUT /sized: the body GET /sized answers from then on (the project's own answer, to compare with). */
  storeSized(body: string): Promise<void>;
  /** GET /sized: that body, read and parsed like a JSON-RPC answer. */
  sized(): Promise<void>;
  /** POST /intake: parse the JSON, write the order and its event in one D1 batch. */
  intake(order: FloorOrder): Promise<void>;
  /**
   * A batch of `count` from the object, 8 in flight, each the way named; timed from the bench's request to its answer,
   * as send_orders is.
   */
  send(way: FloorWay, count: number): Promise<{ accepted: number; seconds: number }>;
}

async function expectOk(response: Response, what: string): Promise<Response> {
  if (!response.ok) throw new Error(`floor ${what}: HTTP ${response.status} ${(await response.text()).slice(0, 200)}`);
  return response;
}

/** Creates the floor's tables and its one order to read; call once before measuring. */
export async function connectFloor(innerUrl: string): Promise<Floor> {
  const call = async (method: string, path: string, body?: unknown) =>
    expectOk(
      await fetch(`${innerUrl}${path}`, {
        method,
        headers: {
          ...ROUTE_TO_FLOOR,
          ...(body === undefined ? {} : { "content-type": "application/json" }),
          // The SDK's transport serves only a client that reads both of its answer forms.
          ...(path === "/mcp" ? { accept: "application/json, text/event-stream" } : {}),
        },
        // A string is sent as it is: it already is the JSON.
        ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
      }),
      `${method} ${path}`,
    );
  await (await call("POST", "/setup")).arrayBuffer();
  let rpcId = 0;
  return {
    ok: async () => void (await (await call("GET", "/ok")).arrayBuffer()),
    read: async () => void (await (await call("GET", "/orders/ORD-setup-1")).arrayBuffer()),
    mcpRead: async () => {
      const answer = (await (
        await call("POST", "/mcp", {
          jsonrpc: "2.0",
          id: ++rpcId,
          method: "tools/call",
          params: { name: "read_order", arguments: { order_id: "ORD-setup-1" } },
        })
      ).json()) as { result?: { structuredContent?: unknown; isError?: boolean } };
      if (answer.result?.structuredContent === undefined || answer.result.isError)
        throw new Error(`floor POST /mcp: no order in ${JSON.stringify(answer).slice(0, 200)}`);
    },
    storeSized: async (body) => void (await (await call("PUT", "/sized", body)).arrayBuffer()),
    sized: async () => void (await (await call("GET", "/sized")).json()),
    intake: async (order) => void (await (await call("POST", "/intake", order)).arrayBuffer()),
    send: async (way, count) => {
      const started = performance.now();
      const result = (await (await call("POST", `/send?via=${way}&count=${count}&concurrency=8`)).json()) as {
        accepted: number;
      };
      if (result.accepted !== count) throw new Error(`floor send ${way}: only ${result.accepted} of ${count} accepted`);
      return { accepted: result.accepted, seconds: (performance.now() - started) / 1000 };
    },
  };
}
