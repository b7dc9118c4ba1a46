/**
 * The JSON-RPC checks made before the SDK sees a message, where the SDK's own
 * answer would be wrong or unreadable: a parse error for JSON that is merely
 * not a message, multi-line schema dumps for bad params, and batches on
 * protocol revisions that removed them.
 *
 * Each works around @modelcontextprotocol/server 2.4.0's own answer and is
 * proved by test/mcp/jsonrpc-over-http.test.ts ("a body that is not JSON",
 * "a JSON body that is not JSON-RPC", "a batch with a request whose params are
 * malformed") and test/mcp/jsonrpc.test.ts.
 */
import {
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCRequest,
  specTypeSchemas,
} from "@modelcontextprotocol/server";
import { z } from "zod/v4";
import { fail, ok, type Result } from "../../core/errors";
import { describeIssues } from "../../core/zod-issues";
import {
  INVALID_PARAMS,
  INVALID_REQUEST,
  type JsonRpcId,
  jsonRpcError,
  jsonRpcRefusal,
  SERVER_ERROR,
} from "./jsonrpc-errors";
import { isModernMessage } from "./protocol-versions";

/** The message in a body, or why there is none (the route answers it as a JSON-RPC parse error). */
export function parseBody(body: string): Result<unknown> {
  if (body.trim() === "")
    return fail("malformed_json", "Parse error: the request body is empty; send one JSON-RPC message");
  let prototypeKey = false;
  // A "__proto__" key is dropped by the schemas' copies (assigning it sets a prototype), so a strict tool input never
  // saw it and accepted it. Looked for only when the text could spell it (an escape included): most bodies cannot.
  const reviver = body.includes("proto")
    ? (key: string, value: unknown) => {
        if (key === "__proto__") prototypeKey = true;
        return value;
      }
    : undefined;
  try {
    const parsed: unknown = JSON.parse(body, reviver);
    if (prototypeKey)
      return fail(
        "malformed_json",
        'Parse error: the request body has a "__proto__" key, which no message or tool takes',
      );
    return ok(parsed);
  } catch {
    return fail("malformed_json", "Parse error: the request body is not valid JSON");
  }
}

// Its status comes from its error code, like every other refusal's.
const invalidRequest = (message: string, id?: JsonRpcId) =>
  jsonRpcRefusal({ code: "bad_request", message }, INVALID_REQUEST, id);

type Classified = { kind: "request"; request: JSONRPCRequest } | { kind: "other" } | undefined;

/**
 * What a message is, with one schema parse: the SDK's message schemas are
 * strict, so its keys already name the only one that could match.
 * undefined: not a JSON-RPC message.
 */
function classify(value: unknown): Classified {
  if (typeof value !== "object" || value === null) return undefined;
  if ("method" in value) {
    if ("id" in value) return isJSONRPCRequest(value) ? { kind: "request", request: value } : undefined;
    return isJSONRPCNotification(value) ? { kind: "other" } : undefined;
  }
  if ("result" in value) return isJSONRPCResultResponse(value) ? { kind: "other" } : undefined;
  return isJSONRPCErrorResponse(value) ? { kind: "other" } : undefined;
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
/** A Map, not an object literal: a method name is input, and "constructor" or "__proto__" must find nothing. */
const PARAMS_BY_METHOD: ReadonlyMap<string, z.ZodType> = new Map<string, z.ZodType>([
  ["tools/call", z.object({ name: z.string().min(1), arguments: Arguments.optional() })],
  ["resources/read", z.object({ uri: z.string().min(1) })],
  ["prompts/get", z.object({ name: z.string().min(1), arguments: Arguments.optional() })],
]);

/**
 * The SDK keeps registered tools and prompts in plain objects, where a name
 * such as "constructor" finds Object.prototype's member and is answered
 * "disabled". Here such a name is what it is: one that names nothing.
 */
const NAMED_BY_PARAMS: ReadonlyMap<string, string> = new Map([
  ["tools/call", "Tool"],
  ["prompts/get", "Prompt"],
]);

function prototypeNameProblem(request: { method: string; params?: unknown }): string | undefined {
  const kind = NAMED_BY_PARAMS.get(request.method);
  const name = (request.params as { name?: unknown } | undefined)?.name;
  return kind !== undefined && typeof name === "string" && name in Object.prototype
    ? `${kind} ${name} not found`
    : undefined;
}

/**
 * A 2025 `initialize` is checked against the SDK's own schema for its params,
 * which the SDK would otherwise answer with -32603 and a multi-line dump.
 * 2026-07-28 removed `initialize`; the SDK answers that itself.
 */
function initializeProblem(params: unknown): string | undefined {
  const checked = specTypeSchemas.InitializeRequestParams["~standard"].validate(params);
  if (checked instanceof Promise || checked.issues === undefined) return undefined;
  return `Invalid params for initialize: ${describeIssues(checked, "params").join("; ")}`;
}

function paramsProblem(request: { method: string; params?: unknown }, modern: boolean): string | undefined {
  if (request.method === "initialize") return modern ? undefined : initializeProblem(request.params);
  const schema = PARAMS_BY_METHOD.get(request.method);
  if (!schema) return undefined;
  const checked = schema.safeParse(request.params);
  if (!checked.success)
    return `Invalid params for ${request.method}: ${describeIssues(checked.error, "params").join("; ")}`;
  return prototypeNameProblem(request);
}

/**
 * A batch with bad params in one request is refused whole, so a batch never
 * half-runs: every request in it is answered (a client waits for each id),
 * the bad ones with their one-line -32602, the rest saying why they did not run.
 */
function refuseBatchParams(requests: readonly JSONRPCRequest[]): Response | undefined {
  // Batches exist only at 2025-03-26.
  const problems = requests.map((request) => paramsProblem(request, false));
  const firstBad = problems.findIndex((problem) => problem !== undefined);
  if (firstBad === -1) return undefined;
  const culprit = requests[firstBad]?.id;
  const answers = requests.map((request, i) => {
    const problem = problems[i];
    return problem !== undefined
      ? jsonRpcError(request.id, INVALID_PARAMS, problem)
      : jsonRpcError(
          request.id,
          SERVER_ERROR,
          `Not run: request ${culprit} in the same batch has invalid params, and a batch runs only when every request in it is valid`,
        );
  });
  // Like any other error a handler answers: HTTP 200, the answers in request order.
  return Response.json(answers, { status: 200 });
}

/**
 * Refuses, with the right code and a one-line message, what the SDK would
 * answer wrongly. Returns undefined when the message may go on to the SDK.
 */
export function refuseMalformed(message: unknown, protocolHeader: string | null): Response | undefined {
  if (Array.isArray(message)) {
    if (message.length === 0)
      return invalidRequest("Invalid Request: an empty JSON-RPC batch; send at least one message");
    const classified = message.map(classify);
    if (classified.includes(undefined))
      return invalidRequest("Invalid Request: every element of a JSON-RPC batch must be a JSON-RPC message");
    const revision = protocolHeader?.trim() || ASSUMED_REVISION;
    if (revision >= BATCHES_REMOVED_IN) {
      return invalidRequest(
        `Invalid Request: protocol ${revision} has no JSON-RPC batches (${BATCHES_REMOVED_IN} removed them); send one message per request`,
      );
    }
    return refuseBatchParams(classified.flatMap((c) => (c?.kind === "request" ? [c.request] : [])));
  }
  const classified = classify(message);
  if (!classified) {
    return invalidRequest(
      "Invalid Request: the body is JSON but not a JSON-RPC 2.0 message (jsonrpc, method or result/error, id)",
      idOf(message),
    );
  }
  if (classified.kind === "request") {
    const problem = paramsProblem(classified.request, isModernMessage(message, protocolHeader));
    // Like any other error a handler answers: HTTP 200 carrying the JSON-RPC error.
    if (problem !== undefined)
      return Response.json(jsonRpcError(classified.request.id, INVALID_PARAMS, problem), { status: 200 });
  }
  return undefined;
}
