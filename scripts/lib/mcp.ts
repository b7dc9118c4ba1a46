import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

/** An SDK client connected the way most clients connect today: the v1 SDK, protocol 2025-11-25, a bearer header. */
export async function connect(baseUrl: string, token: string): Promise<Client> {
  const client = new Client({ name: "order-ops-edge-script", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return client;
}

/** The v2 client pinned to protocol 2026-07-28 (server/discover, then stateless requests). */
export async function connectModern(baseUrl: string, token: string): Promise<ModernClient> {
  const client = new ModernClient(
    { name: "order-ops-edge-script-2026", version: "1.0.0" },
    { versionNegotiation: { mode: { pin: "2026-07-28" } } },
  );
  const transport = new ModernTransport(new URL(`${baseUrl}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return client;
}

export interface ToolOutcome {
  readonly isError: boolean;
  readonly text: string;
  readonly structured: Record<string, unknown> | undefined;
}

/** Either generation's client: both call tools the same way. */
interface ToolCaller {
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<unknown>;
}

export async function callTool(
  client: ToolCaller,
  name: string,
  args: Record<string, unknown> = {},
): Promise<ToolOutcome> {
  const result = (await client.callTool({ name, arguments: args })) as {
    content?: unknown;
    isError?: boolean;
    structuredContent?: unknown;
  };
  const content = Array.isArray(result.content) ? result.content : [];
  const first = content[0] as { type?: string; text?: string } | undefined;
  return {
    isError: result.isError === true,
    text: first?.type === "text" ? (first.text ?? "") : "",
    structured: result.structuredContent as Record<string, unknown> | undefined,
  };
}

export interface ProgressTiming {
  /** Milliseconds from sending the request to the first progress event, to the result. */
  readonly firstProgressMs: number | undefined;
  readonly resultMs: number | undefined;
  readonly progressEvents: number;
  readonly contentType: string;
}

const ENVELOPE_2026 = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "order-ops-edge-script", version: "1.0.0" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

/**
 * Calls send_orders with a progress token over raw HTTP and times each SSE
 * event as it arrives, to show whether progress streams while the batch runs.
 */
export async function timeProgress(
  baseUrl: string,
  token: string,
  protocol: "2025-11-25" | "2026-07-28",
  count: number,
  seed: number,
): Promise<ProgressTiming> {
  const modern = protocol === "2026-07-28";
  const meta = modern ? { ...ENVELOPE_2026, progressToken: "timing" } : { progressToken: "timing" };
  const headers: Record<string, string> = {
    authorization: `Bearer ${token}`,
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": protocol,
    ...(modern ? { "mcp-method": "tools/call", "mcp-name": "send_orders" } : {}),
  };
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "send_orders", arguments: { count, seed }, _meta: meta },
  });
  const started = performance.now();
  const response = await fetch(`${baseUrl}/mcp`, { method: "POST", headers, body });
  let firstProgressMs: number | undefined;
  let resultMs: number | undefined;
  let progressEvents = 0;
  let buffer = "";
  const decoder = new TextDecoder();
  const reader = response.body?.getReader();
  for (;;) {
    const chunk = await reader?.read();
    if (!chunk || chunk.done) break;
    buffer += decoder.decode(chunk.value, { stream: true });
    for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
      const data = buffer
        .slice(0, end)
        .split("\n")
        .find((line) => line.startsWith("data:"));
      buffer = buffer.slice(end + 2);
      if (!data) continue;
      const message = JSON.parse(data.slice(5)) as { method?: string; id?: number };
      const at = performance.now() - started;
      if (message.method === "notifications/progress") {
        progressEvents++;
        firstProgressMs ??= at;
      } else if (message.id === 1) {
        resultMs = at;
      }
    }
  }
  return { firstProgressMs, resultMs, progressEvents, contentType: response.headers.get("content-type") ?? "" };
}

let rawRequestId = 0;

/**
 * One raw JSON-RPC POST to /mcp at protocol 2025-11-25, the way a client sends
 * each request after initialize (the 2025 transport is stateless): no SDK on
 * the client side, so a timing measures the server. Throws on an HTTP error,
 * a JSON-RPC error or a tool result marked isError.
 */
/**
 * The JSON-RPC answer in a response: its JSON body, or the last `data:` event of an SSE stream (the SDK's own
 * handler answers every 2025 request that accepts both media types with a stream, bench/sdk-handler/worker.ts).
 */
async function answerOf(response: Response): Promise<unknown> {
  if (!(response.headers.get("content-type") ?? "").startsWith("text/event-stream")) return response.json();
  const data = (await response.text()).split(/\r?\n/).filter((line) => line.startsWith("data:"));
  return JSON.parse(data.at(-1)?.slice(5) ?? "null");
}

export async function rawRpc(
  baseUrl: string,
  token: string,
  method: string,
  params?: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const response = await fetch(`${baseUrl}/mcp`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2025-11-25",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: ++rawRequestId, method, ...(params ? { params } : {}) }),
  });
  const message = (await answerOf(response)) as { result?: Record<string, unknown>; error?: { message?: string } };
  if (!response.ok || message.error || !message.result)
    throw new Error(`${method}: HTTP ${response.status} ${message.error?.message ?? ""}`);
  if (message.result.isError === true) throw new Error(`${method}: ${JSON.stringify(message.result.content)}`);
  return message.result;
}
