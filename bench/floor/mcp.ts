// The floor of an MCP tool that reads D1 once: the SDK this project must use
// (@modelcontextprotocol/server), one tool with a zod input and output
// schema, answering one order read by id, served the cheapest way the SDK
// allows (one server per isolate, kept connected, as the project's pool
// does). No token, no rate limit, no scopes, no account context: whatever
// the project's read tools cost beyond this is their own, and what this
// costs over the floor's plain D1 read is the SDK's part.
import { type JSONRPCRequest, McpServer } from "@modelcontextprotocol/server";
import { z } from "zod";
import { ConnectedTransport } from "../../src/mcp/transport/connected-transport";

const OrderRow = z.object({
  order_id: z.string(),
  customer_id: z.string(),
  channel: z.string(),
  currency: z.string(),
  status: z.string(),
  lines: z.array(z.object({ sku: z.string(), quantity: z.number().int(), unit_price_cents: z.number().int() })),
  total_cents: z.number().int(),
  created_at: z.string(),
});

export type ReadOrder = (orderId: string) => Promise<z.infer<typeof OrderRow> | undefined>;

interface Connected {
  readonly transport: ConnectedTransport;
  readonly ready: Promise<void>;
}

/** The request being served sets it; one isolate serves the floor, and D1 is the same binding for every request. */
let readOrder: ReadOrder | undefined;
let connected: Connected | undefined;

function connect(): Connected {
  const server = new McpServer({ name: "order-ops-floor", version: "0.0.0" });
  server.registerTool(
    "read_order",
    { description: "One order by id.", inputSchema: z.object({ order_id: z.string().min(1) }), outputSchema: OrderRow },
    async ({ order_id }) => {
      const order = await readOrder?.(order_id);
      if (!order) return { content: [{ type: "text", text: `order ${order_id} not found` }], isError: true };
      return { content: [{ type: "text", text: JSON.stringify(order) }], structuredContent: order };
    },
  );
  const transport = new ConnectedTransport();
  return { transport, ready: server.connect(transport) };
}

/** POST /mcp: one JSON-RPC request (tools/call read_order), answered as JSON. */
export async function floorMcp(request: Request, read: ReadOrder): Promise<Response> {
  readOrder = read;
  connected ??= connect();
  await connected.ready;
  const message = (await request.json()) as JSONRPCRequest;
  return connected.transport.exchange(message, request);
}
