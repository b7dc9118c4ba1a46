import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker-provider.js";
import type { AccountToolContext } from "./account-context";
import { orderTools } from "./orders.tools";
import { runResources, runTools } from "./runs.tools";
import { syntheticResources, syntheticTools } from "./synthetic.tools";
import { registerAccountResources, registerAccountTools, type AccountResource, type AccountTool } from "./tool-seam";

export const SERVER_INFO = { name: "order-ops-edge", version: "0.1.0" } as const;

const INSTRUCTIONS = `Order Ops Edge serves one account, chosen by your credential.
Synthetic traffic: check_target, then preview_order, then send_orders. The target API is fixed by server configuration. Every batch reports its seed; send the same seed again to replay it exactly.
Order operations: list_order_exceptions, get_order_details, then propose_resolution (or prepare_address_change). A proposal changes nothing until a human approves it at its approval_url; you cannot approve it yourself. After the user says it is approved, call confirm_resolution (or apply_approved_change); calling it again returns the same outcome.`;

// AJV compiles validators with eval, which workerd forbids.
const jsonSchemaValidator = new CfWorkerJsonSchemaValidator();

/** Everything this server offers; the scope gate reads the same lists. */
export const ALL_TOOLS: readonly AccountTool[] = [...syntheticTools, ...runTools, ...orderTools];
export const ALL_RESOURCES: readonly AccountResource[] = [...syntheticResources, ...runResources];

/** One McpServer per request: cheap to build, and no state can leak between calls. */
export function createMcpServer(context: AccountToolContext): McpServer {
  const server = new McpServer(SERVER_INFO, { instructions: INSTRUCTIONS, jsonSchemaValidator });
  registerAccountTools(server, context, ALL_TOOLS);
  registerAccountResources(server, context, ALL_RESOURCES);
  return server;
}

const BOTH_MEDIA_TYPES = "application/json, text/event-stream";

/** No tool takes more than a few hundred bytes of arguments; 1 MiB leaves room and stops abuse. */
export const MAX_MCP_BODY_BYTES = 1024 * 1024;

function asksForProgress(message: unknown): boolean {
  const messages = Array.isArray(message) ? message : [message];
  return messages.some((m) => {
    const params = (m as { params?: { _meta?: { progressToken?: unknown } } } | null)?.params;
    return params?._meta?.progressToken !== undefined;
  });
}

/** A JSON-RPC error response for failures before the SDK sees the request. */
export function jsonRpcErrorResponse(status: number, message: string): Response {
  return Response.json({ jsonrpc: "2.0", id: null, error: { code: -32600, message } }, { status });
}

/**
 * Serves one Streamable HTTP request statelessly. The body has already been
 * read and size-checked at the edge. Plain request/response calls get a JSON
 * body; a call that asks for progress (or a client that only accepts SSE)
 * gets an SSE stream so progress notifications can flow before the result.
 */
export async function serveMcpRequest(incoming: Request, body: string, context: AccountToolContext): Promise<Response> {
  const headers = new Headers(incoming.headers);
  const accept = headers.get("accept") ?? "";
  const acceptsSse = accept.includes("text/event-stream");
  const acceptsJson = accept.includes("application/json");
  let parsedBody: unknown;
  try {
    parsedBody = JSON.parse(body);
  } catch {
    parsedBody = undefined;
  }
  const useSse = acceptsSse && (!acceptsJson || asksForProgress(parsedBody));

  // The SDK insists on both media types; we have already chosen the one this client can read.
  headers.set("accept", BOTH_MEDIA_TYPES);
  const request = new Request(incoming.url, { method: "POST", headers, body });

  const server = createMcpServer(context);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: !useSse });
  await server.connect(transport);
  return transport.handleRequest(request, parsedBody === undefined ? undefined : { parsedBody });
}
