import {
  createMcpHandler,
  isLegacyRequest,
  type JSONRPCRequest,
  type McpServer,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import { isJsonMediaType } from "../../core/media-type";
import { jsonUnlessStreamed } from "./json-unless-streamed";
import { refuseMalformed } from "./jsonrpc";
import { toleratedHeaderMismatch } from "./protocol-versions";
import type { RequestNeeds } from "./request-needs";
import { ResponseDelivery } from "./response-delivery";
import { isWholeToolList, keepToolList, keptToolList, type ToolListShelf } from "./tool-list-cache";

/** Where the transport gets its MCP servers: the product's factory (server.ts) for one request's credential. */
export interface McpServerSource {
  /** What a server for this request must hold. */
  readonly needs: RequestNeeds;
  /** A server for this request alone, holding `needs`. */
  forRequest(delivery: ResponseDelivery, needs: RequestNeeds): McpServer;
  /** Where this credential's tools/list answer is kept (tool-list-cache.ts); absent when it must not be. */
  readonly toolList?: ToolListShelf;
}

/**
 * Serves one Streamable HTTP request. The body has already been read,
 * size-checked and parsed at the edge. 2026-07-28 requests (those with the
 * per-request `_meta` envelope) go to the SDK's handler; everything else is a
 * 2025 client, served statelessly.
 */
export async function serveMcpRequest(
  incoming: Request,
  body: string,
  message: unknown,
  servers: McpServerSource,
): Promise<Response> {
  const refused = refuseMalformed(message, incoming.headers.get("mcp-protocol-version"));
  if (refused) return refused;
  const request = toleratedHeaderMismatch(incoming, message, body);
  if (await isLegacyRequest(request, message)) return serve2025(request, message, body, servers);
  return serve2026(request, message, servers);
}

/** Protocol 2026-07-28: the SDK's own handler, with a fresh server from the same factory. */
async function serve2026(request: Request, message: unknown, servers: McpServerSource): Promise<Response> {
  const delivery = new ResponseDelivery(true);
  const handler = createMcpHandler(() => servers.forRequest(delivery, servers.needs), {
    legacy: "reject",
    responseMode: "auto",
    onerror: reportRejection,
  });
  return delivery.track(await handler.fetch(request, { parsedBody: message }));
}

/**
 * A 2025 revision, served statelessly. A call is answered with one JSON body
 * unless the tool sends something before its answer (progress, a log line):
 * then the client gets an SSE stream. Only a call that asked for progress can
 * do that, so every other request is answered as JSON from the start. A client
 * that accepts only one of the two media types always gets that one.
 *
 * This is the SDK's stateless transport, as its handler's `legacy: "stateless"`
 * builds it, but with JSON answers enabled: that fallback streams every answer.
 */
async function serve2025(
  incoming: Request,
  message: unknown,
  body: string,
  servers: McpServerSource,
): Promise<Response> {
  const accept = incoming.headers.get("accept") ?? "";
  const acceptsSse = accept.includes("text/event-stream");
  const acceptsJson = accept.includes("application/json");
  const batch = Array.isArray(message);
  const streams = acceptsSse && (!acceptsJson || (!batch && servers.needs.mayStream));
  const listing = acceptsJson && isWholeToolList(message) ? servers.toolList : undefined;
  // The key names every tool this credential sees: worked out once, for the lookup and for keeping the answer.
  const shelf = listing && { scope: listing.scope, key: listing.key };
  const kept = shelf && keptToolList(shelf, message as JSONRPCRequest, incoming.headers);
  if (kept) return kept;
  // The SDK transport insists on both media types; we have already chosen the one this client reads.
  const request = acceptsSse && acceptsJson ? incoming : withBothMediaTypes(incoming, body);
  const delivery = new ResponseDelivery(streams);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: !streams,
  });
  transport.onerror = reportRejection;
  await servers.forRequest(delivery, servers.needs).connect(transport);
  const response = await transport.handleRequest(request, { parsedBody: message });
  if (shelf) await keepToolList(shelf, response.clone());
  if (batch) return answerAsBatch(response);
  return delivery.track(streams && acceptsJson ? await jsonUnlessStreamed(response) : response);
}

const BOTH_MEDIA_TYPES = "application/json, text/event-stream";

function withBothMediaTypes(incoming: Request, body: string): Request {
  const headers = new Headers(incoming.headers);
  headers.set("accept", BOTH_MEDIA_TYPES);
  return new Request(incoming.url, { method: "POST", headers, body, signal: incoming.signal });
}

/** JSON-RPC answers a batch with an array, even a batch of one; the SDK unwraps a single answer. */
async function answerAsBatch(response: Response): Promise<Response> {
  if (!response.ok || !isJsonMediaType(response.headers.get("content-type"))) return response;
  const answer: unknown = await response.json();
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  return Response.json(Array.isArray(answer) ? answer : [answer], { status: response.status, headers });
}

function reportRejection(error: Error): void {
  // Rejected requests are the caller's mistake, answered in the response; keep the log readable.
  console.warn(`mcp: ${error.message}`);
}
