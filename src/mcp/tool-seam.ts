import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { ErrorCode, McpError, type CallToolResult, type ReadResourceResult } from "@modelcontextprotocol/sdk/types.js";
import type { z } from "zod";
import { isGranted } from "../auth/scopes";
import type { AppError, Result } from "../core/errors";
import type { Scope } from "../core/scopes";
import type { AccountToolContext } from "./account-context";

/**
 * The seam between tool modules and the SDK. Tool modules describe tools as
 * data and write handlers that receive the already-authenticated account
 * context; they never see the raw McpServer, never take an account from
 * arguments, and never write their own try/catch.
 */
export interface ToolAnnotations {
  readonly readOnlyHint: boolean;
  readonly destructiveHint: boolean;
  readonly idempotentHint: boolean;
  readonly openWorldHint: boolean;
}

export interface ToolCallExtras {
  /** Sends notifications/progress when the client asked for progress; otherwise does nothing. */
  readonly reportProgress: (progress: number, total: number, message: string) => Promise<void>;
  readonly signal: AbortSignal;
}

export interface AccountTool<In extends z.ZodObject = z.ZodObject, Out extends z.ZodObject = z.ZodObject> {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly input: In;
  readonly output: Out;
  readonly annotations: ToolAnnotations;
  /** What a credential must be granted to see and call this tool (core/scopes.ts). */
  readonly scope: Scope;
  /** Tools that are off in some configurations (demo helpers) say so here. */
  enabled?(context: AccountToolContext): boolean;
  // Method syntax keeps tools with different schemas assignable to one list.
  handler(args: z.output<In>, context: AccountToolContext, extras: ToolCallExtras): Promise<Result<z.output<Out>>>;
}

export interface AccountResource {
  readonly name: string;
  readonly uri: string;
  readonly title: string;
  readonly description: string;
  readonly scope: Scope;
  read(context: AccountToolContext): Promise<Result<unknown>>;
}

/** Identity helper so each tool's handler is type-checked against its own schemas. */
export function defineTool<In extends z.ZodObject, Out extends z.ZodObject>(tool: AccountTool<In, Out>): AccountTool<In, Out> {
  return tool;
}

export function toolSuccess(value: Record<string, unknown>): CallToolResult {
  return { content: [{ type: "text", text: JSON.stringify(value) }], structuredContent: value };
}

export function toolFailure(error: AppError): CallToolResult {
  return { content: [{ type: "text", text: error.message }], isError: true };
}

/** Built once per tool schema: a server is built for every request. */
const strictInputs = new WeakMap<z.ZodObject, z.ZodObject>();

function strictInput(schema: z.ZodObject): z.ZodObject {
  let strict = strictInputs.get(schema);
  if (!strict) {
    strict = schema.strict();
    strictInputs.set(schema, strict);
  }
  return strict;
}

export function registerAccountTools(server: McpServer, context: AccountToolContext, tools: readonly AccountTool[]): void {
  for (const tool of tools) {
    if (tool.enabled && !tool.enabled(context)) continue;
    // Ungranted tools are not listed; calling one is refused with 403 before the server runs (scope-gate.ts).
    if (!isGranted(context.scopes, tool.scope)) continue;
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        // Unknown arguments are refused, so a model learns that e.g. a `url` it added was not used.
        inputSchema: strictInput(tool.input),
        outputSchema: tool.output,
        annotations: { title: tool.title, ...tool.annotations },
      },
      async (args: Record<string, unknown>, extra): Promise<CallToolResult> => {
        const progressToken = extra._meta?.progressToken;
        const extras: ToolCallExtras = {
          signal: extra.signal,
          reportProgress: async (progress, total, message) => {
            if (progressToken === undefined) return;
            await extra.sendNotification({ method: "notifications/progress", params: { progressToken, progress, total, message } });
          },
        };
        try {
          const result = await tool.handler(args, context, extras);
          return result.ok ? toolSuccess(result.value) : toolFailure(result.error);
        } catch (error) {
          console.error(`tool ${tool.name} failed for account ${context.account}:`, error);
          return toolFailure({ code: "internal", message: `${tool.name} failed unexpectedly; the server log has the details` });
        }
      },
    );
  }
}

export function registerAccountResources(server: McpServer, context: AccountToolContext, resources: readonly AccountResource[]): void {
  for (const resource of resources) {
    if (!isGranted(context.scopes, resource.scope)) continue;
    server.registerResource(
      resource.name,
      resource.uri,
      { title: resource.title, description: resource.description, mimeType: "application/json" },
      async (uri): Promise<ReadResourceResult> => {
        const content = await resource.read(context);
        if (!content.ok) throw new McpError(ErrorCode.InternalError, content.error.message);
        return { contents: [{ uri: uri.href, mimeType: "application/json", text: JSON.stringify(content.value, null, 2) }] };
      },
    );
  }
}
