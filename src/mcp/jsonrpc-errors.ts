/**
 * JSON-RPC error answers for messages the SDK never sees. Kept apart from the
 * SDK-based checks in jsonrpc.ts, so the /mcp route can refuse a request
 * (rate limit, oversized body) without loading the MCP SDK.
 */
export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const INVALID_PARAMS = -32602;
/** Implementation-defined server error (JSON-RPC reserves -32000 to -32099): used for refusals such as a rate limit. */
export const SERVER_ERROR = -32000;

export type JsonRpcId = string | number | null;

/** A JSON-RPC error response for a message the SDK never sees. */
export function jsonRpcErrorResponse(status: number, code: number, message: string, id: JsonRpcId = null): Response {
  return Response.json({ jsonrpc: "2.0", id, error: { code, message } }, { status });
}
