import { type CacheHint, McpServer } from "@modelcontextprotocol/server";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/server/validators/cf-worker";
import { isGranted } from "../auth/scope-check";
import { ANY_PROPOSE_TOOL, APPLY_TOOL_GUIDE } from "../orders/change-kinds";
import type { AccountToolContext } from "./account-context";
import { APPS_EXTENSION_ID } from "./apps";
import { registerAccountPrompts } from "./prompt-registration";
import { workflowPrompts } from "./prompts";
import { EVERYTHING, needsOf, type RequestNeeds } from "./request-needs";
import { type AccountResource, registerAccountResources, registerAppCards } from "./resource-registration";
import { serverExtension } from "./server-extension";
import { registerTaskMethods } from "./task-methods";
import { approvalWaitTools } from "./tools/approval-wait.tools";
import { capacityTools } from "./tools/capacity.tools";
import { orderCards, orderTools } from "./tools/orders.tools";
import { runResources, runTools } from "./tools/runs.tools";
import { syntheticResources, syntheticTools } from "./tools/synthetic.tools";
import { TASKS_EXTENSION_ID } from "./tools/task-handles";
import { type AccountTool, registerAccountTools, type UntilTaken } from "./tools/tool-registration";

/**
 * The revisions served, newest first. 2026-07-28 is stateless by design; the
 * 2025 revisions are served statelessly too (no session id). The first 2025
 * entry is what an `initialize` naming an unknown revision is offered.
 */
export const PROTOCOL_VERSIONS = ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"] as const;

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
 * (request-needs.ts), which keeps it cheap to build. `untilTaken` paces a
 * tool's progress reports; the transport gives it.
 */
export function createMcpServer(
  context: AccountToolContext,
  needs: RequestNeeds = EVERYTHING,
  untilTaken?: UntilTaken,
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
      // Tasks (SEP-2663) are declared here, but only a request that declares them too is answered with one.
      extensions: { [APPS_EXTENSION_ID]: {}, [TASKS_EXTENSION_ID]: {} },
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
  registerAccountTools(server, context, ALL_TOOLS, needs, untilTaken);
  registerAccountResources(server, context, ALL_RESOURCES, needs);
  // Who may read a card depends on the scopes too, so the same short hint.
  registerAppCards(server, orderCards, LIST_CACHE, needs);
  // Listed only when the credential may call every tool a prompt names, so the same short hint.
  registerAccountPrompts(server, context, workflowPrompts, ALL_TOOLS, needs);
  registerTaskMethods(server, context, extension?.tasks);
  extension?.register(server);
  return server;
}

/**
 * What a server for this request must hold. A development extension
 * (server-extension.ts) talks back mid-call and adds tools of its own, so
 * while one is installed every request sees everything.
 */
export function needsFor(context: AccountToolContext, message: unknown): RequestNeeds {
  const needs = needsOf(message);
  const extension = serverExtension(context.config)?.needs;
  return extension === undefined ? needs : { ...extension, taskCall: needs.taskCall };
}

/**
 * The tools a tools/list names for this credential, as a server built with
 * everything registers them; undefined while a development extension adds
 * tools of its own.
 */
export function listedTools(context: AccountToolContext): string[] | undefined {
  if (serverExtension(context.config)) return undefined;
  return ALL_TOOLS.filter(
    (tool) => isGranted(context.scopes, tool.scope) && (!tool.enabled || tool.enabled(context)),
  ).map((tool) => tool.name);
}
