/**
 * What one JSON-RPC request needs. A server is built for every request, and
 * registering every tool, its card and the prompts for a `ping` or for one
 * `tools/call` was most of the cost of building it. The server registers what
 * the request needs and nothing else; everything it answers stays the same,
 * because a request can only see what it names (an unknown or unregistered
 * name gets the SDK's own not-found answer either way).
 *
 * A cost measure, not an SDK workaround: @modelcontextprotocol/server 2.4.0
 * registers eagerly. `npm run bench` shows the per-call cost; the rules are
 * pinned by test/mcp/request-needs.test.ts.
 */
import { declaresTasks } from "./tools/task-handles";

export interface RequestNeeds {
  tool(name: string): boolean;
  resource(uri: string): boolean;
  prompt(name: string): boolean;
  /** A resource template, by the test that says whether a URI matches it. */
  template(matches: (uri: string) => boolean): boolean;
  /** A tool result may be preceded by progress notifications, so the answer may have to stream. */
  readonly mayStream: boolean;
  /**
   * A tools/call whose client declared the tasks extension on the request
   * (tools/task-handles.ts): a tool that can run as a task may answer it with one.
   */
  readonly taskCall?: boolean;
}

const NOTHING: RequestNeeds = {
  tool: () => false,
  resource: () => false,
  prompt: () => false,
  template: () => false,
  mayStream: false,
};
const TOOL_LIST: RequestNeeds = { ...NOTHING, tool: () => true };
const RESOURCE_LIST: RequestNeeds = { ...NOTHING, resource: () => true, template: () => true };
const PROMPT_LIST: RequestNeeds = { ...NOTHING, prompt: () => true };

/** Batches (2025-03-26) and development fixtures see the whole server, as before. */
export const EVERYTHING: RequestNeeds = {
  tool: () => true,
  resource: () => true,
  prompt: () => true,
  template: () => true,
  mayStream: true,
};

/**
 * The methods answered from the server's capabilities alone. Only these get
 * an empty server: a method not named here, such as one a later protocol
 * version adds, sees everything, so it can never be answered as if the
 * account had no tools, resources or prompts.
 */
const CAPABILITIES_ONLY: ReadonlySet<string> = new Set(["initialize", "ping", "server/discover", "logging/setLevel"]);

interface RequestShape {
  readonly method?: unknown;
  readonly params?: {
    readonly name?: unknown;
    readonly uri?: unknown;
    readonly _meta?: { readonly progressToken?: unknown } & Readonly<Record<string, unknown>>;
  };
}

export function needsOf(message: unknown): RequestNeeds {
  if (message === null || typeof message !== "object" || Array.isArray(message)) return EVERYTHING;
  const { method, params } = message as RequestShape;
  switch (method) {
    case "tools/call":
      return {
        ...NOTHING,
        tool: (name) => name === params?.name,
        mayStream: params?._meta?.progressToken !== undefined,
        taskCall: declaresTasks(params?._meta),
      };
    case "resources/read": {
      const uri = params?.uri;
      return {
        ...NOTHING,
        resource: (candidate) => candidate === uri,
        template: (matches) => typeof uri === "string" && matches(uri),
      };
    }
    case "prompts/get":
      return { ...NOTHING, prompt: (name) => name === params?.name };
    case "prompts/list":
      return PROMPT_LIST;
    case "tools/list":
      return TOOL_LIST;
    case "resources/list":
    case "resources/templates/list":
      return RESOURCE_LIST;
    default:
      if (typeof method === "string" && (CAPABILITIES_ONLY.has(method) || method.startsWith("notifications/")))
        return NOTHING;
      return EVERYTHING;
  }
}
