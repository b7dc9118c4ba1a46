/**
 * Where prompt modules meet the SDK, like tool-registration.ts for tools.
 * A prompt is a workflow a person starts by name (hosts show prompts as slash
 * commands): text only, it reads and writes nothing. It names the tools the
 * model should call, in order, and a credential sees it only when it may call
 * every one of them, so a prompt never sends a model to a tool it cannot use.
 */
import type { GetPromptResult, McpServer } from "@modelcontextprotocol/server";
import type { z } from "zod/v4";
import { isGranted } from "../auth/scope-check";
import type { Config } from "../config/config";
import type { AccountToolContext } from "./account-context";
import { EVERYTHING, type RequestNeeds } from "./request-needs";
import type { AccountTool } from "./tools/tool-registration";

export interface AccountPrompt<Args extends z.ZodObject = z.ZodObject> {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  /** MCP prompt arguments are strings; optional ones have a default in the text. */
  readonly args: Args;
  /** Every tool the text may name. */
  readonly tools: readonly string[];
  // Method syntax keeps prompts with different schemas assignable to one list.
  text(args: z.output<Args>, config: Config): string;
}

/** Identity helper so each prompt's text is type-checked against its own arguments. */
export function definePrompt<Args extends z.ZodObject>(prompt: AccountPrompt<Args>): AccountPrompt<Args> {
  return prompt;
}

/** Whether this credential, in this configuration, may call every tool the prompt names. */
export function mayRunPrompt(
  prompt: AccountPrompt,
  context: AccountToolContext,
  tools: readonly AccountTool[],
): boolean {
  return prompt.tools.every((name) => {
    const tool = tools.find((t) => t.name === name);
    return tool !== undefined && isGranted(context.scopes, tool.scope) && (tool.enabled?.(context) ?? true);
  });
}

/** `tools` is the server's whole tool list, which the prompts' tool names are checked against. */
export function registerAccountPrompts(
  server: McpServer,
  context: AccountToolContext,
  prompts: readonly AccountPrompt[],
  tools: readonly AccountTool[],
  needs: RequestNeeds = EVERYTHING,
): void {
  // Only the configuration reaches a prompt's text, never the caller.
  const { config } = context;
  for (const prompt of prompts) {
    if (!needs.prompt(prompt.name)) continue;
    // Not listed, and prompts/get answers "not found", as for an unknown name.
    if (!mayRunPrompt(prompt, context, tools)) continue;
    server.registerPrompt(
      prompt.name,
      { title: prompt.title, description: prompt.description, argsSchema: prompt.args },
      async (args: Record<string, unknown>): Promise<GetPromptResult> => ({
        description: prompt.description,
        messages: [{ role: "user", content: { type: "text", text: prompt.text(args, config) } }],
      }),
    );
  }
}
