import {
  type CacheHint,
  createMcpHandler,
  isLegacyRequest,
  type JSONRPCRequest,
  type ListToolsResult,
  McpServer,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/server/validators/cf-worker";
import { isGranted } from "../auth/scope-check";
import { ANY_PROPOSE_TOOL, APPLY_TOOL_GUIDE } from "../orders/change-kinds";
import type { AccountToolContext } from "./account-context";
import { approvalWaitTools } from "./approval-wait.tools";
import { APPS_EXTENSION_ID } from "./apps";
import { jsonUnlessStreamed } from "./auto-response";
import { capacityTools } from "./capacity.tools";
import { acceptedHeaders, ConnectedTransport } from "./connected-transport";
import { ResponseDelivery } from "./delivery";
import { refuseMalformed } from "./jsonrpc";
import { isWholeListing, ListingAnswer } from "./listing-answer";
import { orderCards, orderTools } from "./orders.tools";
import { registerAccountPrompts } from "./prompt-registration";
import { workflowPrompts } from "./prompts";
import { PROTOCOL_VERSIONS, plainlyLegacy, toleratedHeaderMismatch } from "./protocol-versions";
import { EVERYTHING, type RequestReach, reachOf } from "./request-reach";
import { type AccountResource, registerAccountResources, registerAppCards } from "./resource-registration";
import { runResources, runTools } from "./runs.tools";
import { serverExtension } from "./server-extension";
import { type Lending, offerKey, withPooledServer } from "./server-pool";
import { syntheticResources, syntheticTools } from "./synthetic.tools";
import { type AccountTool, type ContextOf, registerAccountTools } from "./tool-registration";

const SERVER_INFO = { name: "order-ops-edge", version: "0.1.0" } as const;

const INSTRUCTIONS = `Order Ops Edge serves one account, chosen by your credential.
Synthetic traffic: check_target, then preview_order, then send_orders. The target API is fixed by server configuration. Every batch reports its seed; send the same seed again to replay it exactly.
Load: start_traffic_run for a given load; start_capacity_search to find the highest rate that meets an objective (then get_capacity_search until it ends).
Order operations: list_order_exceptions, get_order_details, then propose a change with ${ANY_PROPOSE_TOOL}. A proposal changes nothing until a human approves it at its approval_url; you cannot approve it yourself. After the user says it is approved, apply it with ${APPLY_TOOL_GUIDE}; calling it again returns the same outcome.`;

/**
 * The lists depend on the credential's scopes, which widen when a person
 * grants more (step-up). Re-consenting takes a person longer than this, so a
 * list cached before it has expired by the time the wider grant exists.
 */
const LIST_CACHE: CacheHint = { ttlMs: 10_000, cacheScope: "private" };

// AJV compiles validators with eval, which workerd forbids.
const jsonSchemaValidator = new CfWorkerJsonSchemaValidator();

/** Everything this server offers; the scope gate reads the same lists. */
export const ALL_TOOLS: readonly AccountTool[] = [
  ...syntheticTools,
  ...runTools,
  ...capacityTools,
  ...orderTools,
  ...approvalWaitTools,
];
export const ALL_RESOURCES: readonly AccountResource[] = [...syntheticResources, ...runResources];

/**
 * An McpServer for one request: it holds what this request can reach
 * (request-reach.ts), which keeps it cheap to build.
 */
export function createMcpServer(
  context: AccountToolContext,
  delivery?: ResponseDelivery,
  reach: RequestReach = EVERYTHING,
): McpServer {
  return buildMcpServer(() => context, delivery, reach);
}

/** `contextOf` answers the context of the request being served (server-pool.ts lends one server to many in turn). */
function buildMcpServer(contextOf: ContextOf, delivery: ResponseDelivery | undefined, reach: RequestReach): McpServer {
  const context = contextOf();
  const extension = serverExtension(context.config);
  const server = new McpServer(SERVER_INFO, {
    instructions: INSTRUCTIONS,
    jsonSchemaValidator,
    supportedProtocolVersions: [...PROTOCOL_VERSIONS],
    // Declared, not defaulted: the SDK would otherwise promise list_changed notifications we never send.
    // MCP Apps is declared so hosts that render cards know to look for them; others ignore it.
    // Prompts are declared even when this credential may run none of them, so prompts/list answers an empty list.
    capabilities: {
      tools: { listChanged: false },
      resources: { listChanged: false },
      prompts: { listChanged: false },
      extensions: { [APPS_EXTENSION_ID]: {} },
    },
    ...extension?.options,
    cacheHints: {
      "tools/list": LIST_CACHE,
      "resources/list": LIST_CACHE,
      "prompts/list": LIST_CACHE,
      "server/discover": LIST_CACHE,
      ...extension?.options.cacheHints,
    },
  });
  registerAccountTools(server, contextOf, ALL_TOOLS, delivery, reach);
  registerAccountResources(server, contextOf, ALL_RESOURCES, reach);
  // Who may read a card depends on the scopes too, so the same short hint.
  registerAppCards(server, orderCards, LIST_CACHE, reach);
  // Listed only when the credential may call every tool a prompt names, so the same short hint.
  registerAccountPrompts(server, context, workflowPrompts, ALL_TOOLS, reach);
  extension?.register(server);
  return server;
}

const BOTH_MEDIA_TYPES = "application/json, text/event-stream";

function withBothMediaTypes(incoming: Request, body: string): Request {
  const headers = new Headers(incoming.headers);
  headers.set("accept", BOTH_MEDIA_TYPES);
  return new Request(incoming.url, { method: "POST", headers, body, signal: incoming.signal });
}

function reportRejection(error: Error): void {
  // Rejected requests are the caller's mistake, answered in the response; keep the log readable.
  console.warn(`mcp: ${error.message}`);
}

/**
 * A 2025 revision, served statelessly. A call is answered with one JSON body
 * unless the tool sends something before its answer (progress, a log line):
 * then the client gets an SSE stream. Only a call that asked for progress can
 * do that, so every other request is answered as JSON from the start. A client
 * that accepts only one of the two media types always gets that one.
 */
async function serveLegacy(
  incoming: Request,
  message: unknown,
  body: string,
  context: AccountToolContext,
  reach: RequestReach,
): Promise<Response> {
  const accept = incoming.headers.get("accept") ?? "";
  const acceptsSse = accept.includes("text/event-stream");
  const acceptsJson = accept.includes("application/json");
  const batch = Array.isArray(message);
  const streams = acceptsSse && (!acceptsJson || (!batch && reach.mayStream));
  if (lendable(message, reach, streams, context) && acceptedHeaders(incoming.headers)) {
    const key = offerKey(visibleTools(context), context);
    return withPooledServer(context, key, connectedServer, async (connected) => {
      await connected.ready;
      return isWholeListing(message)
        ? connected.listing.answer(message, incoming)
        : connected.transport.exchange(message, incoming);
    });
  }
  // The SDK transport insists on both media types; we have already chosen the one this client reads.
  const request = acceptsSse && acceptsJson ? incoming : withBothMediaTypes(incoming, body);
  const delivery = new ResponseDelivery(streams);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: !streams,
  });
  transport.onerror = reportRejection;
  const server = createMcpServer(context, delivery, reach);
  await server.connect(transport);
  const response = await transport.handleRequest(request, { parsedBody: message });
  if (batch) return answerAsBatch(response);
  return delivery.track(streams && acceptsJson ? await jsonUnlessStreamed(response) : response);
}

/**
 * Whether a 2025 request can borrow a pooled server: one request answered
 * as one JSON body, so the server is done with it when the answer exists.
 * initialize is not lent one, since it records the client's capabilities on
 * the server; nor are the development fixtures, which talk back mid-call.
 */
function lendable(
  message: unknown,
  reach: RequestReach,
  streams: boolean,
  context: AccountToolContext,
): message is JSONRPCRequest {
  if (streams || reach.mayStream || serverExtension(context.config) !== undefined) return false;
  // refuseMalformed has already let only well-formed messages through.
  if (message === null || typeof message !== "object" || Array.isArray(message) || !("id" in message)) return false;
  return (message as { method?: unknown }).method !== "initialize";
}

interface ConnectedServer {
  readonly transport: ConnectedTransport;
  /** Settles once the server is connected to its transport. */
  readonly ready: Promise<void>;
  /** Its tools/list answer, kept once written (the list is the same for every borrower). */
  readonly listing: ListingAnswer;
}

/** A pooled server, built with everything and kept connected to its own transport. */
function connectedServer({ context }: Lending): ConnectedServer {
  const server = listingOnce(buildMcpServer(context, undefined, EVERYTHING));
  const transport = new ConnectedTransport();
  transport.onerror = reportRejection;
  return { transport, ready: server.connect(transport), listing: new ListingAnswer(transport) };
}

interface HandlerAccess {
  _getRequestHandler?(method: string): ((request: never, ctx: never) => Promise<ListToolsResult>) | undefined;
}

/**
 * A pooled server offers the same tools to every borrower, so its tools/list
 * answer is worked out once (the SDK otherwise converts and scans every
 * tool's schema on each list) and every later list answers the same result.
 * The SDK has no public way to wrap one of its own handlers; without its
 * protected accessor the server simply lists as before.
 */
function listingOnce(server: McpServer): McpServer {
  const list = (server.server as unknown as HandlerAccess)._getRequestHandler?.("tools/list");
  if (!list) return server;
  let listed: Promise<ListToolsResult> | undefined;
  server.server.removeRequestHandler("tools/list");
  server.server.setRequestHandler("tools/list", (request, ctx) => {
    listed ??= list(request as never, ctx as never).catch((error: unknown) => {
      listed = undefined;
      throw error;
    });
    return listed;
  });
  return server;
}

/** The tools this credential sees, as a pooled server registers them. */
function visibleTools(context: AccountToolContext): string[] {
  return ALL_TOOLS.filter(
    (tool) => isGranted(context.scopes, tool.scope) && (!tool.enabled || tool.enabled(context)),
  ).map((tool) => tool.name);
}

/** JSON-RPC answers a batch with an array, even a batch of one; the SDK unwraps a single answer. */
async function answerAsBatch(response: Response): Promise<Response> {
  if (!response.ok || !(response.headers.get("content-type") ?? "").startsWith("application/json")) return response;
  const answer: unknown = await response.json();
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  return Response.json(Array.isArray(answer) ? answer : [answer], { status: response.status, headers });
}

/** Protocol 2026-07-28: the SDK's handler, with a fresh server from the same factory. */
async function serveModern(
  request: Request,
  message: unknown,
  context: AccountToolContext,
  reach: RequestReach,
): Promise<Response> {
  const delivery = new ResponseDelivery(true);
  const handler = createMcpHandler(() => createMcpServer(context, delivery, reach), {
    legacy: "reject",
    responseMode: "auto",
    onerror: reportRejection,
  });
  return delivery.track(await handler.fetch(request, { parsedBody: message }));
}

/**
 * Serves one Streamable HTTP request for one account. The body has already
 * been read, size-checked and parsed at the edge. 2026-07-28 requests (those
 * with the per-request `_meta` envelope) go to the SDK's handler; everything
 * else is a 2025 client, served statelessly.
 */
export async function serveMcpRequest(
  incoming: Request,
  body: string,
  message: unknown,
  context: AccountToolContext,
): Promise<Response> {
  const refused = refuseMalformed(message, incoming.headers.get("mcp-protocol-version"));
  if (refused) return refused;
  const reach = serverExtension(context.config)?.reach ?? reachOf(message);
  const request = toleratedHeaderMismatch(incoming, message, body);
  if (plainlyLegacy(message, request.headers.get("mcp-protocol-version")) || (await isLegacyRequest(request, message)))
    return serveLegacy(request, message, body, context, reach);
  return serveModern(request, message, context, reach);
}
