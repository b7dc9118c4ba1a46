import {
  createMcpHandler,
  isLegacyRequest,
  type JSONRPCRequest,
  type McpServer,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import { isJsonMediaType } from "../../core/media-type";
import type { AccountToolContext } from "../account-context";
import type { RequestNeeds } from "../request-needs";
import { createMcpServer, listedTools, needsFor } from "../server";
import { jsonUnlessStreamed } from "./json-unless-streamed";
import { refuseMalformed } from "./jsonrpc";
import { toleratedHeaderMismatch } from "./protocol-versions";
import { ResponseDelivery } from "./response-delivery";
import { isWholeToolList, keepToolList, keptToolList, listingKey } from "./tool-list-cache";

/** One request's server: built by the product (server.ts) for what the request needs, paced by this response. */
interface RequestServer {
  readonly context: AccountToolContext;
  readonly needs: RequestNeeds;
  build(delivery: ResponseDelivery): McpServer;
}

/**
 * Serves one Streamable HTTP request. The body has already been read,
 * size-checked and parsed at the edge. 2026-07-28 requests (those with the
 * per-request `_meta` envelope) go to the SDK's handler; everything else is a
 * 2025 client, served statelessly. `keepListing: false` serves tools/list
 * without the kept listing: only the bench's comparison asks for it.
 */
export async function serveMcpRequest(
  incoming: Request,
  body: string,
  message: unknown,
  context: AccountToolContext,
  { keepListing = true }: { readonly keepListing?: boolean } = {},
): Promise<Response> {
  const refused = refuseMalformed(message, incoming.headers.get("mcp-protocol-version"));
  if (refused) return refused;
  const request = toleratedHeaderMismatch(incoming, message, body);
  const needs = needsFor(context, message);
  const server: RequestServer = {
    context,
    needs,
    build: (delivery) => createMcpServer(context, needs, () => delivery.taken()),
  };
  if (await isLegacyRequest(request, message)) return serve2025(request, message, body, server, keepListing);
  return serve2026(request, message, server);
}

/** Protocol 2026-07-28: the SDK's own handler, with a fresh server from the same factory. */
async function serve2026(request: Request, message: unknown, server: RequestServer): Promise<Response> {
  const delivery = new ResponseDelivery(true);
  const handler = createMcpHandler(() => server.build(delivery), {
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
  server: RequestServer,
  keepListing: boolean,
): Promise<Response> {
  const accept = incoming.headers.get("accept") ?? "";
  const acceptsSse = accept.includes("text/event-stream");
  const acceptsJson = accept.includes("application/json");
  const batch = Array.isArray(message);
  const streams = acceptsSse && (!acceptsJson || (!batch && server.needs.mayStream));
  const tools = keepListing && acceptsJson && isWholeToolList(message) ? listedTools(server.context) : undefined;
  // Worked out only for a tools/list: most requests never need it.
  const listing = tools && listingKey(server.context.config, tools, server.context.scopes);
  const kept = listing && keptToolList(listing, message as JSONRPCRequest, incoming.headers);
  if (kept) return kept;
  // The SDK transport insists on both media types; we have already chosen the one this client reads.
  const request = acceptsSse && acceptsJson ? incoming : withBothMediaTypes(incoming, body);
  const delivery = new ResponseDelivery(streams);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: !streams,
  });
  transport.onerror = reportRejection;
  await server.build(delivery).connect(transport);
  const response = await transport.handleRequest(request, { parsedBody: message });
  if (listing) await keepToolList(listing, response.clone());
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
