// A reference order API with a known schedule, for checking a traffic run's
// figures against the truth. It answers like the order intake API (GET
// /api/health, POST /api/orders with request_id idempotency and the intake
// receipt), and logs every order: when it was scheduled (the run's
// x-order-ops-scheduled-at header), when it arrived and when it was answered.
// Each order's true latency is its answer time minus its scheduled instant.
// Schedules:
//   a  every order takes 20 ms
//   b  20 ms, but an order arriving in the first second of every 5 s takes 1000 ms
//   c  at most 4 orders at once, 50 ms each, the rest wait in a FIFO queue: capacity 80/s
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { answer, header, readBody } from "./node-http.ts";

export const SCHEDULES = {
  a: "every order takes 20 ms",
  b: "20 ms, but orders arriving in the first second of every 5 s take 1000 ms",
  c: "at most 4 at once, 50 ms each, a FIFO queue beyond (capacity 80/s)",
} as const;
export type Schedule = keyof typeof SCHEDULES;

/**
 * What the reference API reports, the built-in API's counts, so a run against it reads like one against the real one.
 */
const HEALTH = { status: "ok", skus: 8, customers: 5 } as const;
const C_WORKERS = 4;
const C_SERVICE_MS = 50;

export interface LoggedOrder {
  readonly request_id: string;
  /** When the run scheduled it (epoch ms), from its header; null when it carried none. */
  readonly scheduled_ms: number | null;
  readonly arrived_ms: number;
  answered_ms: number;
}

export interface ReferenceTarget {
  readonly url: string;
  /** Every order taken since the last reset(), in arrival order. */
  readonly log: readonly LoggedOrder[];
  /** Switches the schedule and empties the log. */
  use(schedule: Schedule): void;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export async function startReferenceTarget(initial: Schedule = "a"): Promise<ReferenceTarget> {
  let schedule: Schedule = initial;
  let log: LoggedOrder[] = [];
  const orders = new Map<string, { order_id: string; customer_id: string; lines: number; total_cents: number }>();
  // Schedule c: the free workers, and who waits for one, first come first served.
  let free = C_WORKERS;
  const queue: (() => void)[] = [];

  async function serve(arrived: number): Promise<void> {
    if (schedule === "a") return sleep(20);
    if (schedule === "b") return sleep(arrived % 5000 < 1000 ? 1000 : 20);
    if (free > 0) free--;
    else await new Promise<void>((resolve) => queue.push(resolve));
    await sleep(C_SERVICE_MS);
    const next = queue.shift();
    if (next) next();
    else free++;
  }

  async function intake(request: IncomingMessage, response: ServerResponse, arrived: number): Promise<void> {
    let order: { request_id?: unknown; customer_id?: unknown; lines?: unknown; total_cents?: unknown };
    try {
      order = JSON.parse(await readBody(request)) as typeof order;
    } catch {
      return answer(response, 400, { code: "malformed_json", message: "the body is not JSON" });
    }
    const requestId = typeof order.request_id === "string" ? order.request_id : "";
    const scheduled = Number(header(request, "x-order-ops-scheduled-at"));
    const entry: LoggedOrder = {
      request_id: requestId,
      scheduled_ms: Number.isFinite(scheduled) && scheduled > 0 ? scheduled : null,
      arrived_ms: arrived,
      answered_ms: 0,
    };
    log.push(entry);
    await serve(arrived);
    const key = `${header(request, "x-order-ops-account")}/${requestId}`;
    const known = orders.get(key);
    const receipt = known ?? {
      order_id: `REF-${orders.size + 1}`,
      customer_id: typeof order.customer_id === "string" ? order.customer_id : "",
      lines: Array.isArray(order.lines) ? order.lines.length : 0,
      total_cents: typeof order.total_cents === "number" ? order.total_cents : 0,
    };
    orders.set(key, receipt);
    entry.answered_ms = Date.now();
    answer(response, known ? 200 : 201, receipt);
  }

  const server = createServer((request, response) => {
    const arrived = Date.now();
    const path = new URL(request.url ?? "/", "http://localhost").pathname;
    if (path === "/api/health" && request.method === "GET") return answer(response, 200, HEALTH);
    if (path === "/api/orders" && request.method === "POST") {
      intake(request, response, arrived).catch((error: unknown) => {
        if (!response.headersSent) answer(response, 500, { code: "internal", message: String(error) });
      });
      return;
    }
    answer(response, 404, { code: "not_found", message: `no route ${request.method} ${path}` });
  });
  // Many short-lived loopback connections at 200/s: keep them alive rather than opening one per order.
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    get log() {
      return log;
    },
    use(next) {
      schedule = next;
      log = [];
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
