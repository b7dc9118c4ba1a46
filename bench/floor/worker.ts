// The floor `npm run bench` measures the project against: the same hops as
// the project's order path with none of its work. A Durable Object sends
// orders over a service binding to an entrypoint that parses the JSON and
// writes the order and its event in one D1 batch, with the same kind of
// idempotent insert; a route answers `ok`; a route reads one order by id.
// Whatever the project does beyond this is its own cost, and what this
// cannot exceed is the runtime's. A route answers the JSON body it was last
// given, for what answering those bytes costs: the same bytes as the
// project's answer, since how well they compress decides what the edge (and
// wrangler dev's stand-in for it) spends on them. Not project code: never
// deployed, and nothing in src/ imports it.
//
// One way of sending adds what the project's audit chain asks of the
// platform: while the batch runs, the object reads the new events back from
// D1 in pages, hashes each onto a chain, and writes one seal per event in one
// statement per page, under a trigger that lets a seal only extend the chain
// (seal.ts). The project promises that chain; this way prices its D1 work on
// its own.
import { DurableObject, WorkerEntrypoint } from "cloudflare:workers";
import type { ReadOrder } from "./mcp";
import { SEAL_EVERY_MS, SEAL_SCHEMA, sealPass } from "./seal";

type ReadOrderResult = NonNullable<Awaited<ReturnType<ReadOrder>>>;

interface FloorEnv {
  readonly DB: D1Database;
  readonly SENDER: DurableObjectNamespace<FloorSender>;
  readonly INTAKE: Fetcher;
}

/** How the object sends each order; the bench prints one figure per way. */
export type SendWay = "binding" | "direct" | "binding-nodb" | "binding-chained";
const SEND_WAYS: readonly SendWay[] = ["binding", "direct", "binding-nodb", "binding-chained"];

interface FloorLine {
  readonly sku: string;
  readonly quantity: number;
  readonly unit_price_cents: number;
}

interface FloorOrder {
  readonly request_id: string;
  readonly customer_id: string;
  readonly channel: string;
  readonly currency: string;
  readonly lines: readonly FloorLine[];
  readonly total_cents: number;
}

const ACCOUNT = "floor";

// How `npm run profile` and the bench tell this isolate from the project's on
// an inspector session (scripts/lib/floor.ts).
(globalThis as Record<string, unknown>).orderOpsFloor = true;

// The same keys and indexes as the project's orders and audit_events: what a
// write costs depends on them, so the floor carries them too.
const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS floor_orders (
     account TEXT NOT NULL, order_id TEXT NOT NULL, request_id TEXT, customer_id TEXT NOT NULL,
     channel TEXT NOT NULL, currency TEXT NOT NULL, total_cents INTEGER NOT NULL, status TEXT NOT NULL,
     lines TEXT NOT NULL, created_at TEXT NOT NULL, PRIMARY KEY (account, order_id))`,
  "CREATE UNIQUE INDEX IF NOT EXISTS floor_orders_request ON floor_orders (account, request_id) WHERE request_id IS NOT NULL",
  `CREATE TABLE IF NOT EXISTS floor_events (
     entry INTEGER PRIMARY KEY, account TEXT NOT NULL, event_id TEXT NOT NULL, order_id TEXT NOT NULL,
     event_type TEXT NOT NULL, state_after TEXT, created_at TEXT NOT NULL, UNIQUE (account, event_id))`,
  "CREATE INDEX IF NOT EXISTS floor_events_order ON floor_events (account, order_id, created_at)",
  "CREATE INDEX IF NOT EXISTS floor_events_entry ON floor_events (account, entry)",
  ...SEAL_SCHEMA,
];

/** An order of the size the project's generator makes: two or three lines, a UUID request_id. */
function floorOrder(n: number, requestId: string = crypto.randomUUID()): FloorOrder {
  const lines = Array.from({ length: 2 + (n % 2) }, (_, i) => ({
    sku: `SKU-${5510 + i}`,
    quantity: 1 + ((n + i) % 4),
    unit_price_cents: 1299 + 100 * i,
  }));
  return {
    request_id: requestId,
    customer_id: `CUST-000${1 + (n % 5)}`,
    channel: "web",
    currency: "USD",
    lines,
    total_cents: lines.reduce((sum, line) => sum + line.quantity * line.unit_price_cents, 0),
  };
}

/** The order and its event in one batch; the event only once, like the order. */
async function writeOrder(db: D1Database, order: FloorOrder): Promise<{ status: number; order_id: string }> {
  const orderId = `ORD-${order.request_id}`;
  const now = new Date().toISOString();
  const [inserted] = await db.batch([
    db
      .prepare(
        `INSERT INTO floor_orders (account, order_id, request_id, customer_id, channel, currency, total_cents, status, lines, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, 'accepted', ?, ?) ON CONFLICT DO NOTHING`,
      )
      .bind(
        ACCOUNT,
        orderId,
        order.request_id,
        order.customer_id,
        order.channel,
        order.currency,
        order.total_cents,
        JSON.stringify(order.lines),
        now,
      ),
    db
      .prepare(
        "INSERT OR IGNORE INTO floor_events (account, event_id, order_id, event_type, state_after, created_at) VALUES (?, ?, ?, 'order_received', ?, ?)",
      )
      .bind(
        ACCOUNT,
        `${orderId}:received`,
        orderId,
        JSON.stringify({ status: "accepted", total_cents: order.total_cents, lines: order.lines }),
        now,
      ),
  ]);
  return { status: inserted?.meta.changes === 1 ? 201 : 200, order_id: orderId };
}

async function intake(request: Request, db: D1Database | undefined): Promise<Response> {
  const order = (await request.json()) as FloorOrder;
  const receipt = db ? await writeOrder(db, order) : { status: 201, order_id: `ORD-${order.request_id}` };
  return Response.json(
    { order_id: receipt.order_id, lines: order.lines.length, total_cents: order.total_cents },
    { status: receipt.status },
  );
}

/** What the ORDER_API binding reaches in the project: the intake, with and without its D1 write. */
export class FloorIntake extends WorkerEntrypoint<FloorEnv> {
  override async fetch(request: Request): Promise<Response> {
    const { pathname } = new URL(request.url);
    if (request.method === "POST" && pathname === "/intake") return intake(request, this.env.DB);
    if (request.method === "POST" && pathname === "/intake-nodb") return intake(request, undefined);
    return new Response("not found", { status: 404 });
  }
}

/** The account object's part: sends a batch with a fixed number of orders in flight. */
export class FloorSender extends DurableObject<FloorEnv> {
  async send(count: number, way: SendWay, concurrency: number): Promise<{ accepted: number; ms: number }> {
    const started = Date.now();
    let sending = true;
    const chained = way === "binding-chained";
    const from = chained
      ? ((
          await this.env.DB.prepare("SELECT COALESCE(MAX(entry), 0) AS entry FROM floor_events").first<{
            entry: number;
          }>()
        )?.entry ?? 0)
      : 0;
    // Passes run beside the batch, and the last one after it, without holding up its answer: as the project seals.
    const sealing = async () => {
      while (sending) {
        await new Promise((resolve) => setTimeout(resolve, SEAL_EVERY_MS));
        await sealPass(this.env.DB, ACCOUNT, from);
      }
    };
    const sealer = chained ? sealing() : undefined;
    let next = 0;
    let accepted = 0;
    const post = async (order: FloorOrder): Promise<boolean> => {
      if (way === "direct") return (await writeOrder(this.env.DB, order)).status === 201;
      const path = way === "binding-nodb" ? "/intake-nodb" : "/intake";
      const response = await this.env.INTAKE.fetch(`https://floor.binding${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(order),
      });
      await response.json();
      return response.status === 201;
    };
    const worker = async () => {
      while (next < count) {
        if (await post(floorOrder(next++))) accepted++;
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, count)) }, worker));
    sending = false;
    if (sealer) this.ctx.waitUntil(sealer.then(() => sealPass(this.env.DB, ACCOUNT, from)));
    return { accepted, ms: Date.now() - started };
  }
}

async function readOrder(db: D1Database, orderId: string): Promise<ReadOrderResult | undefined> {
  const row = await db
    .prepare(
      "SELECT order_id, customer_id, channel, currency, status, lines, total_cents, created_at FROM floor_orders WHERE account = ? AND order_id = ?",
    )
    .bind(ACCOUNT, orderId)
    .first<Omit<ReadOrderResult, "lines"> & { lines: string }>();
  return row ? { ...row, lines: JSON.parse(row.lines) as FloorLine[] } : undefined;
}

/** The body GET /sized answers, as PUT /sized last stored it. */
let sizedBody = "{}";

function whole(value: string | null, fallback: number): number {
  const parsed = Number(value ?? fallback);
  return Number.isInteger(parsed) && parsed > 0 ? parsed : fallback;
}

export default {
  async fetch(request: Request, env: FloorEnv): Promise<Response> {
    const url = new URL(request.url);
    const route = `${request.method} ${url.pathname}`;
    if (route === "GET /ok") return new Response("ok");
    if (route === "GET /sized") return new Response(sizedBody, { headers: { "content-type": "application/json" } });
    if (route === "PUT /sized") {
      sizedBody = await request.text();
      return new Response("ok");
    }
    if (route === "POST /setup") {
      await env.DB.batch(SCHEMA.map((sql) => env.DB.prepare(sql)));
      await writeOrder(env.DB, floorOrder(1, "setup-1"));
      return new Response("ok");
    }
    if (route === "POST /intake") return intake(request, env.DB);
    if (request.method === "GET" && url.pathname.startsWith("/orders/")) {
      const order = await readOrder(env.DB, decodeURIComponent(url.pathname.slice("/orders/".length)));
      return order ? Response.json(order) : new Response("not found", { status: 404 });
    }
    if (route === "POST /mcp") {
      // Loaded on first use, as the project loads its MCP server: the other routes never pay for the SDK.
      const { floorMcp } = await import("./mcp");
      return floorMcp(request, (orderId) => readOrder(env.DB, orderId));
    }
    if (route === "POST /send") {
      const way = url.searchParams.get("via") as SendWay;
      if (!SEND_WAYS.includes(way)) return new Response(`via must be one of ${SEND_WAYS.join(", ")}`, { status: 400 });
      const result = await env.SENDER.getByName(ACCOUNT).send(
        whole(url.searchParams.get("count"), 100),
        way,
        whole(url.searchParams.get("concurrency"), 8),
      );
      return Response.json(result);
    }
    return new Response("not found", { status: 404 });
  },
} satisfies ExportedHandler<FloorEnv>;
