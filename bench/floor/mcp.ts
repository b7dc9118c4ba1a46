// The floor of an MCP tool that reads D1 once: the SDK this project must use
// (@modelcontextprotocol/server), one tool with a zod input and output
// schema, answering one order read by id, served the cheapest way the SDK's
// public API allows (a server per request on its stateless transport, with
// JSON answers). No token, no rate limit, no scopes, no account context: whatever
// the project's read tools cost beyond this is their own, and what this
// costs over the floor's plain D1 read is the SDK's part.
import { McpServer, WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/server";
import { z } from "zod";

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

function floorServer(readOrder: ReadOrder): McpServer {
  const server = new McpServer({ name: "order-ops-floor", version: "0.0.0" });
  server.registerTool(
    "read_order",
    { description: "One order by id.", inputSchema: z.object({ order_id: z.string().min(1) }), outputSchema: OrderRow },
    async ({ order_id }) => {
      const order = await readOrder(order_id);
      if (!order) return { content: [{ type: "text", text: `order ${order_id} not found` }], isError: true };
      return { content: [{ type: "text", text: JSON.stringify(order) }], structuredContent: order };
    },
  );
  return server;
}

/** POST /mcp: one JSON-RPC request (tools/call read_order), answered as JSON. */
export async function floorMcp(request: Request, read: ReadOrder): Promise<Response> {
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await floorServer(read).connect(transport);
  return transport.handleRequest(request);
}
