/**
 * What one JSON-RPC request can reach. A server is built for every request,
 * and registering all sixteen tools and their cards for a `ping` or for one
 * `tools/call` was most of the cost of building it. The server registers what
 * the request can reach and nothing else; everything it answers stays the
 * same, because a request can only see what it names (an unknown or
 * unregistered name gets the SDK's own not-found answer either way).
 */
export interface RequestReach {
  tool(name: string): boolean;
  resource(uri: string): boolean;
  /** A resource template, by the test that says whether a URI matches it. */
  template(matches: (uri: string) => boolean): boolean;
  /** A tool result may be preceded by progress notifications, so the answer may have to stream. */
  readonly mayStream: boolean;
}

const NOTHING: RequestReach = { tool: () => false, resource: () => false, template: () => false, mayStream: false };
const TOOL_LIST: RequestReach = { tool: () => true, resource: () => false, template: () => false, mayStream: false };
const RESOURCE_LIST: RequestReach = { tool: () => false, resource: () => true, template: () => true, mayStream: false };

/** Batches (2025-03-26) and development fixtures see the whole server, as before. */
export const EVERYTHING: RequestReach = { tool: () => true, resource: () => true, template: () => true, mayStream: true };

interface RequestShape {
  readonly method?: unknown;
  readonly params?: { readonly name?: unknown; readonly uri?: unknown; readonly _meta?: { readonly progressToken?: unknown } };
}

export function reachOf(message: unknown): RequestReach {
  if (message === null || typeof message !== "object" || Array.isArray(message)) return EVERYTHING;
  const { method, params } = message as RequestShape;
  switch (method) {
    case "tools/call":
      return { tool: (name) => name === params?.name, resource: () => false, template: () => false, mayStream: params?._meta?.progressToken !== undefined };
    case "resources/read": {
      const uri = params?.uri;
      return { tool: () => false, resource: (candidate) => candidate === uri, template: (matches) => typeof uri === "string" && matches(uri), mayStream: false };
    }
    case "tools/list":
      return TOOL_LIST;
    case "resources/list":
    case "resources/templates/list":
      return RESOURCE_LIST;
    default:
      // initialize, ping, server/discover, notifications: capabilities only.
      return NOTHING;
  }
}
