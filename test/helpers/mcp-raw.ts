/**
 * Raw Streamable HTTP helpers for tests that need to see the wire: status
 * codes, headers, content types and SSE frames the SDK client hides.
 */
import { expect } from "vitest";
import { MCP_URL, workerFetch } from "./mcp-client";

export const BOTH_MEDIA_TYPES = "application/json, text/event-stream";

export interface JsonRpcRequest {
  jsonrpc: "2.0";
  id?: number | string;
  method: string;
  params?: Record<string, unknown>;
}

export interface JsonRpcError {
  code: number;
  message: string;
}

export interface JsonRpcMessage {
  jsonrpc: "2.0";
  id?: number | string | null;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: JsonRpcError;
}

export interface McpPostOptions {
  /** Bearer token; omit for no Authorization header. */
  token?: string;
  accept?: string;
  origin?: string;
  headers?: Record<string, string>;
}

export function rpc(id: number | string, method: string, params?: Record<string, unknown>): JsonRpcRequest {
  return params === undefined ? { jsonrpc: "2.0", id, method } : { jsonrpc: "2.0", id, method, params };
}

export function initializeRequest(id: number, protocolVersion: string): JsonRpcRequest {
  return rpc(id, "initialize", {
    protocolVersion,
    capabilities: {},
    clientInfo: { name: "raw-vitest", version: "1.0.0" },
  });
}

export function mcpHeaders(options: McpPostOptions = {}): Record<string, string> {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: options.accept ?? BOTH_MEDIA_TYPES,
  };
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  if (options.origin !== undefined) headers.origin = options.origin;
  return { ...headers, ...options.headers };
}

/** POST /mcp with a JSON-RPC body (a string is sent verbatim, anything else is JSON-encoded). */
export function postMcp(body: unknown, options: McpPostOptions = {}): Promise<Response> {
  return workerFetch(MCP_URL, {
    method: "POST",
    headers: mcpHeaders(options),
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** Asserts a JSON (not SSE) answer and returns its JSON-RPC message. */
export async function jsonAnswer(response: Response): Promise<JsonRpcMessage> {
  expect(response.headers.get("content-type")).toMatch(/^application\/json/);
  return (await response.json()) as JsonRpcMessage;
}

export interface SseEvent {
  event: string | undefined;
  data: string;
}

/** Splits a complete text/event-stream body into events (data lines joined with \n). */
export function parseSse(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    if (block.trim() === "") continue;
    let event: string | undefined;
    const data: string[] = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith("event:")) event = line.slice(6).trim();
      else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
    }
    if (data.length > 0) events.push({ event, data: data.join("\n") });
  }
  return events;
}

/** The JSON-RPC messages carried by an SSE body, in stream order. */
export function sseMessages(text: string): JsonRpcMessage[] {
  return parseSse(text).map((e) => JSON.parse(e.data) as JsonRpcMessage);
}

/** The per-request `_meta` envelope every 2026-07-28 request carries. */
export const ENVELOPE_2026 = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "raw-vitest", version: "1.0.0" },
  "io.modelcontextprotocol/clientCapabilities": {},
} as const;

/** A 2026-07-28 request: the envelope merged into params._meta. */
export function modernRpc(id: number | string, method: string, params: Record<string, unknown> = {}): JsonRpcRequest {
  const meta = (params._meta as Record<string, unknown> | undefined) ?? {};
  return rpc(id, method, { ...params, _meta: { ...ENVELOPE_2026, ...meta } });
}

/** The headers a 2026-07-28 client derives from its request body (SEP-2243). */
export function modernHeaders(method: string, name?: string): Record<string, string> {
  return {
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": method,
    ...(name === undefined ? {} : { "mcp-name": name }),
  };
}
