/**
 * Where tool modules meet the SDK. Tool modules describe tools as
 * data and write handlers that receive the already-authenticated account
 * context; they never see the raw McpServer, never take an account from
 * arguments, and never write their own try/catch.
 */
import {
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  type InputRequiredResult,
  inputRequired,
  inputResponse,
  type McpServer,
  type StandardSchemaWithJSON,
} from "@modelcontextprotocol/server";
import type { z } from "zod/v4";
import { isGranted } from "../../auth/scope-check";
import type { Config } from "../../config/config";
import type { AppError, Result } from "../../core/errors";
import type { Scope } from "../../core/scopes";
import type { AccountToolContext } from "../account-context";
import { type AppCard, appToolMeta } from "../apps";
import { publishedSchema, resultOutline } from "../published-schema";
import { EVERYTHING, type RequestNeeds } from "../request-needs";
import { createTaskResult, type StartedTask, TASK_TOOL_META } from "./task-handles";

interface ToolAnnotations {
  readonly readOnlyHint: boolean;
  readonly destructiveHint: boolean;
  readonly idempotentHint: boolean;
  readonly openWorldHint: boolean;
}

interface ToolCallExtras {
  /**
   * Sends notifications/progress; present only when the client asked for
   * progress, so a tool does no reporting work (for send_orders, a call from
   * the account's object back to this request) that nobody reads.
   */
  readonly reportProgress?: (progress: number, total: number, message: string) => Promise<void>;
  readonly signal: AbortSignal;
  /**
   * Present only when this request's client declared URL elicitation (the
   * 2026-07-28 revision carries its capabilities on every request): the tool
   * may then ask the person to open a page and come back, and `answered`
   * says the call is that return. A stateless 2025 server cannot know what
   * the client declared at initialize, so there it is absent.
   */
  readonly openUrl?: OpenUrl;
}

/** Asks the client's person to open `url` (our approval page), then to call the tool again. */
export interface OpenUrl {
  readonly answered: boolean;
  ask(url: string, message: string): AskedToOpen;
}

const OPEN_URL_KEY = "open_url";

/**
 * What a tool answers to have its client show a URL: registration turns it into the protocol's input-required result.
 */
export interface AskedToOpen {
  readonly asked: InputRequiredResult;
}

function isAskedToOpen(value: unknown): value is AskedToOpen {
  return typeof value === "object" && value !== null && "asked" in value;
}

function openUrlFor(ctx: {
  mcpReq: { envelope?: unknown; inputResponses?: Parameters<typeof inputResponse>[0] };
}): OpenUrl | undefined {
  // The SDK types the envelope loosely; the capabilities are what the client declared on this request.
  const declared = (ctx.mcpReq.envelope as Record<string, ClientCapabilities | undefined> | undefined)?.[
    CLIENT_CAPABILITIES_META_KEY
  ];
  if (declared?.elicitation?.url === undefined) return undefined;
  return {
    answered: inputResponse(ctx.mcpReq.inputResponses, OPEN_URL_KEY).kind === "elicit",
    ask: (url, message) => ({
      asked: inputRequired({ inputRequests: { [OPEN_URL_KEY]: inputRequired.elicitUrl({ message, url }) } }),
    }),
  };
}

export interface AccountTool<In extends z.ZodObject = z.ZodObject, Out extends z.ZodObject = z.ZodObject> {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  /** A function of the configuration when the contract depends on it (send_orders' count ceiling is MAX_BATCH). */
  readonly input: In | ((config: Config) => In);
  readonly output: Out;
  /**
   * For a tool that answers what another tool's listing already outlines in full: the fields its own listing
   * names (published-schema.ts, resultOutline).
   */
  readonly outlineFields?: readonly (keyof z.output<Out> & string)[];
  readonly annotations: ToolAnnotations;
  /** What a credential must be granted to see and call this tool (core/scopes.ts). */
  readonly scope: Scope;
  /** Tools that are off in some configurations (demo helpers) say so here. */
  enabled?(context: AccountToolContext): boolean;
  /** MCP Apps: the card a host that renders Apps shows this tool's result in. The result itself does not change. */
  readonly ui?: AppCard;
  /**
   * Present on a tool that may run as an MCP task (task-handles.ts): starts the work and its task, for a client that
   * declared the tasks extension on the call. Every other client gets `handler`'s answer, as before.
   */
  task?(args: z.output<In>, context: AccountToolContext): Promise<Result<StartedTask>>;
  // Method syntax keeps tools with different schemas assignable to one list.
  handler(
    args: z.output<In>,
    context: AccountToolContext,
    extras: ToolCallExtras,
  ): Promise<Result<z.output<Out>> | AskedToOpen>;
}

/** Identity helper so each tool's handler is type-checked against its own schemas. */
export function defineTool<In extends z.ZodObject, Out extends z.ZodObject>(
  tool: AccountTool<In, Out>,
): AccountTool<In, Out> {
  return tool;
}

/** A handler's answer as the tool result every client reads; tasks/get inlines the same one. */
export function toolResult(result: Result<Record<string, unknown>>): CallToolResult {
  return result.ok ? toolSuccess(result.value) : toolFailure(result.error);
}

function toolSuccess(value: Record<string, unknown>): CallToolResult {
  return { content: [{ type: "text", text: JSON.stringify(value) }], structuredContent: value };
}

function toolFailure(error: AppError): CallToolResult {
  return { content: [{ type: "text", text: error.message }], isError: true };
}

/**
 * Published schemas are built once per schema (and per configuration for the
 * ones that depend on it): a server is built for every request.
 */
type ToolSchema = StandardSchemaWithJSON<Record<string, unknown>>;
const published = new WeakMap<z.ZodObject, ToolSchema>();
const outlines = new WeakMap<AccountTool, ToolSchema>();
const strictSchemas = new WeakMap<z.ZodObject, z.ZodObject>();
const configured = new WeakMap<(config: Config) => z.ZodObject, WeakMap<Config, z.ZodObject>>();

function memo<K extends object, V>(cache: WeakMap<K, V>, key: K, make: () => V): V {
  let value = cache.get(key);
  if (value === undefined) {
    value = make();
    cache.set(key, value);
  }
  return value;
}

function publish(schema: z.ZodObject): ToolSchema {
  return memo(published, schema, () => publishedSchema(schema));
}

function publishOutput(tool: AccountTool): ToolSchema {
  return memo(outlines, tool, () =>
    publishedSchema(tool.output, { reshape: (json) => resultOutline(json, tool.outlineFields), trusted: true }),
  );
}

/**
 * The tool's input for this configuration; unknown arguments are refused, so a model learns that e.g. a `url` it added
 * was not used.
 */
function strictInput(tool: AccountTool, config: Config): z.ZodObject {
  const input = tool.input;
  if (typeof input !== "function") return memo(strictSchemas, input, () => input.strict());
  const perConfig = memo(configured, input, () => new WeakMap<Config, z.ZodObject>());
  return memo(perConfig, config, () => input(config).strict());
}

/**
 * Resolves once the client has taken what this request has streamed so far.
 * The transport gives it (transport/response-delivery.ts says why workerd needs it), so a tool's progress reaches the
 * client before the next piece of work starts.
 */
export type UntilTaken = () => Promise<void>;

/** `needs` names what this request can call; `untilTaken` paces progress reports. */
export function registerAccountTools(
  server: McpServer,
  context: AccountToolContext,
  tools: readonly AccountTool[],
  needs: RequestNeeds = EVERYTHING,
  untilTaken?: UntilTaken,
): void {
  for (const tool of tools) {
    if (!needs.tool(tool.name)) continue;
    if (tool.enabled && !tool.enabled(context)) continue;
    // Ungranted tools are not listed; calling one is refused with 403 before the server runs (scope-gate.ts).
    if (!isGranted(context.scopes, tool.scope)) continue;
    // A server answers one request. For a call that will be answered with a task, the SDK (2.4.0) would hold the
    // CreateTaskResult to the output schema and refuse it; the listing, which shows the schema, is not this request.
    const task = needs.taskCall === true ? tool.task : undefined;
    const meta = { ...(tool.ui === undefined ? {} : appToolMeta(tool.ui)), ...(tool.task ? TASK_TOOL_META : {}) };
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: publish(strictInput(tool, context.config)),
        ...(task === undefined ? { outputSchema: publishOutput(tool) } : {}),
        annotations: { title: tool.title, ...tool.annotations },
        ...(Object.keys(meta).length === 0 ? {} : { _meta: meta }),
      },
      async (args: Record<string, unknown>, ctx): Promise<CallToolResult | InputRequiredResult> => {
        const progressToken = ctx.mcpReq._meta?.progressToken;
        const openUrl = openUrlFor(ctx);
        const extras: ToolCallExtras = {
          signal: ctx.mcpReq.signal,
          ...(openUrl === undefined ? {} : { openUrl }),
          ...(progressToken === undefined
            ? {}
            : {
                reportProgress: async (progress: number, total: number, message: string) => {
                  await ctx.mcpReq.notify({
                    method: "notifications/progress",
                    params: { progressToken, progress, total, message },
                  });
                  await untilTaken?.();
                },
              }),
        };
        try {
          if (task !== undefined) {
            const started = await task(args, context);
            return started.ok
              ? { content: [], ...createTaskResult(started.value.task, started.value.statusMessage) }
              : toolFailure(started.error);
          }
          const result = await tool.handler(args, context, extras);
          if (isAskedToOpen(result)) return result.asked;
          return result.ok ? toolSuccess(result.value) : toolFailure(result.error);
        } catch (error) {
          console.error(`tool ${tool.name} failed for account ${context.account}:`, error);
          return toolFailure({
            code: "internal",
            message: `${tool.name} failed unexpectedly; the server log has the details`,
          });
        }
      },
    );
  }
}
