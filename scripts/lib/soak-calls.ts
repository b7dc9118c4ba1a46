// What the soak's clients call and what it counts: an MCP client whose every
// HTTP answer is counted by status, tool calls timed per operation, and the
// calls that go around MCP (the intake API, the approval list, audit exports).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { checkExportedChain } from "../../src/audit/chain-check.ts";

interface Stats {
  readonly latencies: Map<string, number[]>;
  readonly statuses: Map<number, number>;
  toolErrors: number;
  created201: number;
  mismatches: string[];
}

export const stats: Stats = { latencies: new Map(), statuses: new Map(), toolErrors: 0, created201: 0, mismatches: [] };

export function record(operation: string, ms: number): void {
  const list = stats.latencies.get(operation) ?? [];
  list.push(ms);
  stats.latencies.set(operation, list);
}

/** fetch that counts every HTTP status the server answers. */
export const countingFetch: typeof fetch = async (input, init) => {
  const response = await fetch(input, init);
  stats.statuses.set(response.status, (stats.statuses.get(response.status) ?? 0) + 1);
  return response;
};

export async function connect(baseUrl: string, token: string): Promise<Client> {
  const client = new Client({ name: "order-ops-soak", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), {
      fetch: countingFetch,
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

interface Outcome {
  readonly isError: boolean;
  readonly structured: Record<string, unknown>;
}

export async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<Outcome> {
  const started = performance.now();
  const result = await client.callTool({ name, arguments: args });
  record(name, performance.now() - started);
  if (result.isError) stats.toolErrors++;
  return { isError: result.isError === true, structured: (result.structuredContent ?? {}) as Record<string, unknown> };
}

export async function sendOrders(client: Client, args: Record<string, unknown>): Promise<void> {
  const sent = await call(client, "send_orders", args);
  stats.created201 += Number((sent.structured.status_counts as Record<string, number> | undefined)?.["201"] ?? 0);
}

export async function timedFetch(operation: string, url: string, init: RequestInit): Promise<void> {
  const started = performance.now();
  const response = await countingFetch(url, init);
  await response.arrayBuffer();
  record(operation, performance.now() - started);
}

/**
 * An order posted straight to the intake API with the account's token, as any
 * client of the API would, and now and then posted again: the replay must
 * answer 200 with the same order and store nothing new.
 */
export async function postIntakeOrder(baseUrl: string, token: string): Promise<void> {
  const requestId = `soak-${crypto.randomUUID()}`;
  const order = {
    request_id: requestId,
    customer_id: "CUST-0003",
    channel: "web",
    currency: "USD",
    lines: [{ sku: "SKU-1180", quantity: 1, unit_price_cents: 1200 }],
    total_cents: 1200,
  };
  const post = async (operation: string) => {
    const started = performance.now();
    const response = await countingFetch(`${baseUrl}/api/orders`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(order),
    });
    const body = (await response.json()) as { order_id?: string };
    record(operation, performance.now() - started);
    return { status: response.status, orderId: body.order_id };
  };
  const first = await post("POST /api/orders");
  if (first.status === 201) stats.created201++;
  if (Math.random() < 0.3) {
    const replay = await post("POST /api/orders (replay)");
    if (replay.status !== 200 || replay.orderId !== first.orderId) {
      stats.mismatches.push(
        `replaying ${requestId} answered ${replay.status} ${replay.orderId ?? ""}, expected 200 ${first.orderId ?? ""}`,
      );
    }
  }
}

/** An NDJSON export of the account's trail, taken while everything else writes: it must be an intact chain. */
export async function exportAudit(baseUrl: string, approverToken: string): Promise<void> {
  const started = performance.now();
  const response = await countingFetch(`${baseUrl}/api/audit`, {
    headers: { authorization: `Bearer ${approverToken}` },
  });
  const text = await response.text();
  record("GET /api/audit", performance.now() - started);
  if (response.status !== 200) return;
  const checker = await checkExportedChain(text);
  if (checker.problems.length > 0)
    stats.mismatches.push(`an audit export under load does not verify: ${checker.problems[0]?.message}`);
}

/** The approver's pending list, as the approval app reads it. */
export function listApprovals(baseUrl: string, approverToken: string): Promise<void> {
  return timedFetch("GET /api/approvals", `${baseUrl}/api/approvals`, {
    headers: { authorization: `Bearer ${approverToken}` },
  });
}
