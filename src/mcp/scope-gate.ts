import { isGranted } from "../auth/scope-check";
import type { Scope } from "../core/scopes";
import { resourceMatches } from "./resource-registration";
import { ALL_RESOURCES, ALL_TOOLS } from "./server";

/** A call in the request that the credential's scopes do not cover. */
interface OutOfScopeCall {
  readonly needed: Scope;
  /** The tool or resource, for the refusal message. */
  readonly what: string;
}

function neededScope(message: unknown): OutOfScopeCall | undefined {
  if (typeof message !== "object" || message === null) return undefined;
  const { method, params } = message as { method?: unknown; params?: { name?: unknown; uri?: unknown } };
  if (method === "tools/call") {
    const tool = ALL_TOOLS.find((t) => t.name === params?.name);
    return tool && { needed: tool.scope, what: tool.name };
  }
  if (method === "resources/read") {
    const uri = params?.uri;
    if (typeof uri !== "string") return undefined;
    const resource = ALL_RESOURCES.find((r) => resourceMatches(r, uri));
    return resource && { needed: resource.scope, what: uri };
  }
  return undefined;
}

/**
 * The first tools/call or resources/read in a request (one JSON-RPC message
 * or a batch) outside the granted scopes. It runs before the SDK
 * sees the request because the answer must be HTTP 403 with a step-up
 * challenge, which a tool result cannot carry; tool registration enforces the same
 * scopes again when it registers tools. Unknown names pass through, so the
 * SDK answers them as it answers any unknown tool.
 */
export function outOfScopeCall(parsed: unknown, granted: readonly Scope[]): OutOfScopeCall | undefined {
  for (const message of Array.isArray(parsed) ? parsed : [parsed]) {
    const call = neededScope(message);
    if (call && !isGranted(granted, call.needed)) return call;
  }
  return undefined;
}
