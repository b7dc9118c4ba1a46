/**
 * Conformance fixtures: resources (text, binary, a template, one to subscribe
 * to), prompts, and argument completion. Names and texts are the ones the
 * suite's scenarios ask for (see fixtures.ts).
 */
import {
  acceptedContent,
  completable,
  type GetPromptResult,
  type InputRequiredResult,
  inputRequired,
  type McpServer,
  ResourceTemplate,
  type ServerContext,
} from "@modelcontextprotocol/server";
import { z } from "zod/v4";
import { RED_PIXEL_PNG } from "./content.tools";

const COMPLETIONS = ["paris", "park", "party"];

function registerResources(server: McpServer): void {
  server.registerResource(
    "static-text",
    "test://static-text",
    { title: "Static text", description: "A fixed text resource.", mimeType: "text/plain" },
    async (uri) => ({
      contents: [{ uri: uri.href, mimeType: "text/plain", text: "This is the content of the static text resource." }],
    }),
  );

  server.registerResource(
    "static-binary",
    "test://static-binary",
    { title: "Static binary", description: "A fixed PNG image.", mimeType: "image/png" },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: "image/png", blob: RED_PIXEL_PNG }] }),
  );

  server.registerResource(
    "template",
    new ResourceTemplate("test://template/{id}/data", { list: undefined }),
    { title: "Templated data", description: "Data for any id.", mimeType: "application/json" },
    async (uri, { id }) => ({
      contents: [
        {
          uri: uri.href,
          mimeType: "application/json",
          text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${String(id)}` }),
        },
      ],
    }),
  );

  server.registerResource(
    "watched-resource",
    "test://watched-resource",
    { title: "Watched resource", description: "A resource to subscribe to; it never changes.", mimeType: "text/plain" },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: "text/plain", text: "Watched resource content" }] }),
  );

  // Nothing here changes, so a subscription is acknowledged and never notified.
  server.server.setRequestHandler("resources/subscribe", async () => ({}));
  server.server.setRequestHandler("resources/unsubscribe", async () => ({}));
}

function registerPrompts(server: McpServer): void {
  server.registerPrompt(
    "test_simple_prompt",
    { title: "Simple prompt", description: "A prompt without arguments." },
    async () => ({
      messages: [{ role: "user", content: { type: "text", text: "This is a simple prompt for testing." } }],
    }),
  );

  server.registerPrompt(
    "test_prompt_with_arguments",
    {
      title: "Prompt with arguments",
      description: "A prompt with two required arguments; arg1 offers completions.",
      argsSchema: z.object({
        arg1: completable(z.string().describe("First test argument"), (value) =>
          COMPLETIONS.filter((word) => word.startsWith(value)),
        ),
        arg2: z.string().describe("Second test argument"),
      }),
    },
    async ({ arg1, arg2 }) => ({
      messages: [
        { role: "user", content: { type: "text", text: `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'` } },
      ],
    }),
  );

  server.registerPrompt(
    "test_prompt_with_embedded_resource",
    {
      title: "Prompt with a resource",
      description: "Embeds the resource it is given.",
      argsSchema: z.object({ resourceUri: z.string().describe("URI of the resource to embed") }),
    },
    async ({ resourceUri }) => ({
      messages: [
        {
          role: "user",
          content: {
            type: "resource",
            resource: { uri: resourceUri, mimeType: "text/plain", text: "Embedded resource content for testing." },
          },
        },
        { role: "user", content: { type: "text", text: "Please process the embedded resource above." } },
      ],
    }),
  );

  server.registerPrompt(
    "test_prompt_with_image",
    { title: "Prompt with an image", description: "Shows an image, then asks about it." },
    async () => ({
      messages: [
        { role: "user", content: { type: "image", data: RED_PIXEL_PNG, mimeType: "image/png" } },
        { role: "user", content: { type: "text", text: "Please analyze the image above." } },
      ],
    }),
  );

  server.registerPrompt(
    "test_input_required_result_prompt",
    { title: "Prompt that asks first", description: "Asks the user for context before it renders." },
    // Without argsSchema the SDK passes the request context as the only argument.
    async (ctx: unknown): Promise<GetPromptResult | InputRequiredResult> => {
      const context = acceptedContent<{ context: string }>(
        (ctx as ServerContext).mcpReq.inputResponses,
        "user_context",
      )?.context;
      if (typeof context === "string")
        return {
          messages: [{ role: "user", content: { type: "text", text: `Use the following context: ${context}` } }],
        };
      const requestedSchema = {
        type: "object" as const,
        properties: { context: { type: "string" as const } },
        required: ["context"],
      };
      return inputRequired({
        inputRequests: {
          user_context: inputRequired.elicit({ message: "What context should the prompt use?", requestedSchema }),
        },
      });
    },
  );
}

export function registerResourcesAndPrompts(server: McpServer): void {
  registerResources(server);
  registerPrompts(server);
}
