/**
 * A 2025 tools/list, answered once per configuration and per what a
 * credential sees. The whole list is about 140 KiB of JSON, the same for every
 * credential with the same visible tools and scopes, and building a server of
 * every tool to write it again is most of a tools/list's cost. The first
 * request is answered by the SDK like any other and the bytes of its result
 * are kept; every later one gets those bytes behind its own JSON-RPC id.
 *
 * A speed piece: @modelcontextprotocol/server 2.4.0 converts every tool's
 * schema and writes the listing anew on each request. The bench's tools/list
 * rows justify it (src/mcp/transport/README.md).
 */
import { isJsonContentType, type JSONRPCRequest } from "@modelcontextprotocol/server";
import { isJsonMediaType } from "../../core/media-type";
import { PROTOCOL_VERSIONS } from "../server";

const UTF8 = new TextEncoder();

/** Which kept listing a credential gets: per configuration, then per the tools and scopes it sees. */
export interface ListingKey {
  readonly config: object;
  /** The tools it sees and its scopes, which decide every tool's entry. */
  readonly seen: string;
}

export function listingKey(config: object, visibleTools: readonly string[], scopes: Iterable<string>): ListingKey {
  return { config, seen: `${visibleTools.join(",")}|${[...scopes].sort().join(",")}` };
}

/** A tools/list that asks for the whole list and nothing else (no cursor, no _meta); anything else is the SDK's. */
export function isWholeToolList(message: unknown): message is JSONRPCRequest {
  if (message === null || typeof message !== "object" || Array.isArray(message)) return false;
  const { method, params } = message as { method?: unknown; params?: unknown };
  if (method !== "tools/list" || !("id" in message)) return false;
  return (
    params === undefined ||
    (typeof params === "object" && params !== null && !Array.isArray(params) && Object.keys(params).length === 0)
  );
}

const SERVED_REVISIONS: ReadonlySet<string> = new Set(PROTOCOL_VERSIONS);

/** Whether the SDK's transport would take these headers as they are; a refusal (400, 415) stays the SDK's to give. */
function acceptedHeaders(headers: Headers): boolean {
  const revision = headers.get("mcp-protocol-version");
  return isJsonContentType(headers.get("content-type")) && (revision === null || SERVED_REVISIONS.has(revision));
}

const kept = new WeakMap<object, Map<string, Uint8Array>>();

/** The kept answer for this request's id, if a listing under its key was kept and the SDK would answer it. */
export function keptToolList(key: ListingKey, request: JSONRPCRequest, headers: Headers): Response | undefined {
  if (!acceptedHeaders(headers)) return undefined;
  const result = kept.get(key.config)?.get(key.seen);
  if (result === undefined) return undefined;
  const head = UTF8.encode(`{"jsonrpc":"2.0","id":${JSON.stringify(request.id)},`);
  const body = new Uint8Array(head.length + result.length);
  body.set(head);
  body.set(result, head.length);
  return new Response(body, { status: 200, headers: { "content-type": "application/json" } });
}

/** Keeps the result of the SDK's answer to a whole listing; an error or anything but JSON is not kept. */
export async function keepToolList(key: ListingKey, answer: Response): Promise<void> {
  if (answer.status !== 200 || !isJsonMediaType(answer.headers.get("content-type"))) return;
  const message = (await answer.json()) as { result?: unknown; error?: unknown };
  if (message.result === undefined || message.error !== undefined) return;
  const listings = kept.get(key.config) ?? new Map<string, Uint8Array>();
  kept.set(key.config, listings);
  listings.set(key.seen, UTF8.encode(`"result":${JSON.stringify(message.result)}}`));
}
