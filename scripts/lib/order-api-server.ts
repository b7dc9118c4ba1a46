// A second order API on this machine, for the tests and the smoke run to aim
// ORDER_API_URL at instead of the internet. It speaks the intake contract
// (GET /api/health, POST /api/orders with request_id idempotency), with
// counts unlike the built-in API's so a check can tell which one answered.
// Under a path prefix it misbehaves on purpose:
//   /redirect/api/...   answers 307 to another host, which must not be followed
//   /slow/api/...       answers after SLOW_MS
// GET /received lists what POST /api/orders took, headers included.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { answer, header, readBody } from "./node-http.ts";

/** What the second API reports, unlike the built-in 8 SKUs and 5 customers. */
export const SECOND_API_HEALTH = { status: "ok", skus: 3, customers: 2 } as const;
export const REDIRECT_HOST = "elsewhere.example";
export const SLOW_MS = 1500;

export interface ReceivedOrder {
  readonly request_id: string;
  readonly account: string | null;
  readonly actor: string | null;
  readonly authorization: string | null;
  readonly status: number;
}

export interface OrderApiServer {
  /** Its origin, like http://127.0.0.1:40123 */
  readonly url: string;
  readonly received: readonly ReceivedOrder[];
  close(): Promise<void>;
}

/** `token`, when given, is the bearer credential POST /api/orders requires. */
export async function startOrderApiServer(token?: string): Promise<OrderApiServer> {
  const received: ReceivedOrder[] = [];
  const orders = new Map<string, { order_id: string; total_cents: number }>();

  async function intake(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const authorization = header(request, "authorization");
    const record = (requestId: string, status: number) =>
      received.push({
        request_id: requestId,
        account: header(request, "x-order-ops-account"),
        actor: header(request, "x-order-ops-actor"),
        authorization,
        status,
      });
    let order: { request_id?: unknown; total_cents?: unknown };
    try {
      order = JSON.parse(await readBody(request)) as typeof order;
    } catch {
      return answer(response, 400, { code: "malformed_json", message: "the body is not JSON" });
    }
    const requestId = typeof order.request_id === "string" ? order.request_id : "";
    if (token !== undefined && authorization !== `Bearer ${token}`) {
      record(requestId, 401);
      return answer(response, 401, { code: "unauthorized", message: "this API wants its bearer token" });
    }
    if (requestId === "" || typeof order.total_cents !== "number") {
      record(requestId, 422);
      return answer(response, 422, {
        code: "validation_failed",
        message: "order rejected",
        errors: ["request_id and total_cents are required"],
      });
    }
    const key = `${header(request, "x-order-ops-account")}/${requestId}`;
    const known = orders.get(key);
    const stored = known ?? { order_id: `SECOND-${orders.size + 1}`, total_cents: order.total_cents };
    orders.set(key, stored);
    record(requestId, known ? 200 : 201);
    answer(response, known ? 200 : 201, { ...stored, second_api: true });
  }

  async function route(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = new URL(request.url ?? "/", "http://localhost").pathname;
    if (path === "/received") return answer(response, 200, received);
    if (path.startsWith("/redirect/")) {
      return answer(
        response,
        307,
        { message: "moved" },
        { location: `https://${REDIRECT_HOST}${path.slice("/redirect".length)}` },
      );
    }
    if (path.startsWith("/slow/")) {
      await new Promise((resolve) => setTimeout(resolve, SLOW_MS));
      return route(Object.assign(request, { url: path.slice("/slow".length) }), response);
    }
    if (path === "/api/health" && request.method === "GET") return answer(response, 200, SECOND_API_HEALTH);
    if (path === "/api/orders" && request.method === "POST") return intake(request, response);
    answer(response, 404, { code: "not_found", message: `no route ${request.method} ${path}` });
  }

  const server = createServer((request, response) => {
    route(request, response).catch((error: unknown) => {
      if (!response.headersSent) answer(response, 500, { code: "internal", message: String(error) });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
