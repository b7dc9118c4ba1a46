import { isJSONRPCErrorResponse, isJSONRPCNotification, isJSONRPCRequest, isJSONRPCResultResponse } from "@modelcontextprotocol/server";
import { z } from "zod/v4";
import { describeIssues } from "../core/zod-issues";
import { INVALID_PARAMS, INVALID_REQUEST, jsonRpcErrorResponse, PARSE_ERROR, type JsonRpcId } from "./jsonrpc-errors";

/**
 * The JSON-RPC checks made before the SDK sees a message, where the SDK's own
 * answer would be wrong or unreadable: a parse error for JSON that is merely
 * not a message, multi-line schema dumps for bad params, and batches on
 * protocol revisions that removed them.
 */

export type ParsedBody = { ok: true; value: unknown } | { ok: false; response: Response };

export function parseBody(body: string): ParsedBody {
  if (body.trim() === "") {
    return { ok: false, response: jsonRpcErrorResponse(400, PARSE_ERROR, "Parse error: the request body is empty; send one JSON-RPC message") };
  }
  try {
    return { ok: true, value: JSON.parse(body) };
  } catch {
    return { ok: false, response: jsonRpcErrorResponse(400, PARSE_ERROR, "Parse error: the request body is not valid JSON") };
  }
}

function isMessage(value: unknown): boolean {
  return isJSONRPCRequest(value) || isJSONRPCNotification(value) || isJSONRPCResultResponse(value) || isJSONRPCErrorResponse(value);
}

/** The id to echo in an error: only a well-formed one. */
function idOf(value: unknown): JsonRpcId {
  const id = (value as { id?: unknown } | null)?.id;
  return typeof id === "string" || typeof id === "number" ? id : null;
}

/** The first revision without JSON-RPC batches. */
const BATCHES_REMOVED_IN = "2025-06-18";

/**
 * Without an MCP-Protocol-Version header a 2025 server assumes 2025-03-26, the
 * last revision with batches (the header did not exist yet).
 */
const ASSUMED_REVISION = "2025-03-26";

// Only what the SDK needs to route the call; each tool validates its own arguments.
const Arguments = z.record(z.string(), z.unknown(), { error: "must be an object of named arguments (or left out)" });
const PARAMS_BY_METHOD: Readonly<Record<string, z.ZodType>> = {
  "tools/call": z.object({ name: z.string().min(1), arguments: Arguments.optional() }),
  "resources/read": z.object({ uri: z.string().min(1) }),
  "prompts/get": z.object({ name: z.string().min(1), arguments: Arguments.optional() }),
};

function paramsProblem(request: { method: string; params?: unknown }): string | undefined {
  const schema = PARAMS_BY_METHOD[request.method];
  if (!schema) return undefined;
  const checked = schema.safeParse(request.params);
  if (checked.success) return undefined;
  return `Invalid params for ${request.method}: ${describeIssues(checked.error, "params").join("; ")}`;
}

/**
 * Refuses, with the right code and a one-line message, what the SDK would
 * answer wrongly. Returns undefined when the message may go on to the SDK.
 */
export function refuseMalformed(message: unknown, protocolHeader: string | null): Response | undefined {
  if (Array.isArray(message)) {
    if (message.length === 0) return jsonRpcErrorResponse(400, INVALID_REQUEST, "Invalid Request: an empty JSON-RPC batch; send at least one message");
    if (!message.every(isMessage)) return jsonRpcErrorResponse(400, INVALID_REQUEST, "Invalid Request: every element of a JSON-RPC batch must be a JSON-RPC message");
    const revision = protocolHeader?.trim() || ASSUMED_REVISION;
    if (revision >= BATCHES_REMOVED_IN) {
      return jsonRpcErrorResponse(
        400,
        INVALID_REQUEST,
        `Invalid Request: protocol ${revision} has no JSON-RPC batches (${BATCHES_REMOVED_IN} removed them); send one message per request`,
      );
    }
    return undefined;
  }
  if (!isMessage(message)) {
    return jsonRpcErrorResponse(400, INVALID_REQUEST, "Invalid Request: the body is JSON but not a JSON-RPC 2.0 message (jsonrpc, method or result/error, id)", idOf(message));
  }
  if (isJSONRPCRequest(message)) {
    const problem = paramsProblem(message);
    // Like any other error a handler answers: HTTP 200 carrying the JSON-RPC error.
    if (problem !== undefined) return jsonRpcErrorResponse(200, INVALID_PARAMS, problem, message.id);
  }
  return undefined;
}
