/**
 * JSON-RPC error answers for messages the SDK never sees. Kept apart from the
 * SDK-based checks in jsonrpc.ts, so the /mcp route can refuse a request
 * (rate limit, oversized body) without loading the MCP SDK.
 */
import { type AppError, statusOf } from "../../core/errors";
import { errorHeaders } from "../../http/respond";

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const INVALID_PARAMS = -32602;
/** Implementation-defined server error (JSON-RPC reserves -32000 to -32099): used for refusals such as a rate limit. */
export const SERVER_ERROR = -32000;

export type JsonRpcId = string | number | null;

/** One JSON-RPC error message. */
export function jsonRpcError(id: JsonRpcId, code: number, message: string) {
  return { jsonrpc: "2.0", id, error: { code, message } } as const;
}

/**
 * A request refused before the SDK sees it, answered as a JSON-RPC error. Its
 * HTTP status and headers come from the one mapping of error codes (core/errors.ts,
 * http/respond.ts), so a rate limit carries its Retry-After here too.
 */
export function jsonRpcRefusal(error: AppError, code: number, id: JsonRpcId = null): Response {
  return Response.json(jsonRpcError(id, code, error.message), {
    status: statusOf(error),
    headers: errorHeaders(error),
  });
}
