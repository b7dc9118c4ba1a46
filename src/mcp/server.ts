import { type CacheHint, McpServer } from "@modelcontextprotocol/server";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/server/validators/cf-worker";
import { isGranted } from "../auth/scope-check";
import { ANY_PROPOSE_TOOL, APPLY_TOOL_GUIDE } from "../orders/change-kinds";
import type { AccountToolContext } from "./account-context";
import { APPS_EXTENSION_ID } from "./apps";
import { registerAccountPrompts } from "./prompt-registration";
import { workflowPrompts } from "./prompts";
import { type AccountResource, registerAccountResources, registerAppCards } from "./resource-registration";
import { serverExtension } from "./server-extension";
import { approvalWaitTools } from "./tools/approval-wait.tools";
import { capacityTools } from "./tools/capacity.tools";
import { orderCards, orderTools } from "./tools/orders.tools";
import { runResources, runTools } from "./tools/runs.tools";
import { syntheticResources, syntheticTools } from "./tools/synthetic.tools";
import { type AccountTool, registerAccountTools } from "./tools/tool-registration";
import { PROTOCOL_VERSIONS } from "./transport/protocol-versions";
import { EVERYTHING, needsOf, type RequestNeeds } from "./transport/request-needs";
import type { ResponseDelivery } from "./transport/response-delivery";
import type { McpServerSource } from "./transport/serve-request";
import { toolListKey } from "./transport/tool-list-cache";

const SERVER_INFO = { name: "order-ops-edge", version: "0.1.0" } as const;

// Facts every tool shares are said here once, not in each tool's description: a model reads both.
const INSTRUCTIONS = `Order Ops Edge serves one account, chosen by your credential. No tool takes a URL, host or account: the order API that traffic goes to is fixed by server configuration.
Synthetic traffic: check_target, then preview_order, then send_orders. Every batch, run and search reports its seed; the same seed replays the same orders. The server caps batch size, rate, length and orders (MAX_BATCH, MAX_RUN_RATE, MAX_RUN_SECONDS, MAX_RUN_ORDERS) and refuses, never clamps, anything over them.
Load: start_traffic_run for a given load; start_capacity_search to find the highest rate that meets an objective. Poll get_traffic_run or get_capacity_search while status is running.
Order operations: list_order_exceptions, get_order_details, then propose a change with ${ANY_PROPOSE_TOOL}. A proposal changes nothing until a person approves it in the approval application at its approval_url; no tool can approve. After it is approved, apply it with ${APPLY_TOOL_GUIDE}; calling it again returns the same outcome.`;

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
 * An McpServer for one request: it holds what this request needs
 * (request-needs.ts), which keeps it cheap to build.
 */
export function createMcpServer(
  context: AccountToolContext,
  delivery?: ResponseDelivery,
  needs: RequestNeeds = EVERYTHING,
): McpServer {
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
  registerAccountTools(server, context, ALL_TOOLS, delivery, needs);
  registerAccountResources(server, context, ALL_RESOURCES, needs);
  // Who may read a card depends on the scopes too, so the same short hint.
  registerAppCards(server, orderCards, LIST_CACHE, needs);
  // Listed only when the credential may call every tool a prompt names, so the same short hint.
  registerAccountPrompts(server, context, workflowPrompts, ALL_TOOLS, needs);
  extension?.register(server);
  return server;
}

/**
 * The servers one request is served by (transport/serve-request.ts): built
 * for what the request needs, and a 2025 tools/list answered from the kept
 * listing of what this credential sees (transport/tool-list-cache.ts). A
 * development extension (server-extension.ts) talks back mid-call, sees
 * everything and adds tools of its own, so nothing of its servers is kept.
 */
export function mcpServersFor(context: AccountToolContext, message: unknown): McpServerSource {
  const extension = serverExtension(context.config);
  return {
    needs: extension?.needs ?? needsOf(message),
    forRequest: (delivery, needs) => createMcpServer(context, delivery, needs),
    toolList: extension
      ? undefined
      : {
          scope: context.config,
          // Worked out only for a tools/list: most requests never read it.
          get key() {
            return toolListKey(visibleTools(context), context.scopes);
          },
        },
  };
}

/** The tools this credential sees, as a server built with everything registers them. */
function visibleTools(context: AccountToolContext): string[] {
  return ALL_TOOLS.filter(
    (tool) => isGranted(context.scopes, tool.scope) && (!tool.enabled || tool.enabled(context)),
  ).map((tool) => tool.name);
}
