/**
 * Conformance fixtures: tools whose results exercise each kind of content, and
 * notifications during a call. Names and texts are the ones the suite's
 * scenarios ask for (see fixtures.ts).
 */
import { type CallToolResult, fromJsonSchema, type JsonSchemaType, type McpServer } from "@modelcontextprotocol/server";
import { z } from "zod/v4";

/** A 1x1 red PNG. */
export const RED_PIXEL_PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
/** A WAV header with two bytes of silence. */
const SILENT_WAV = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";

const NO_ARGUMENTS = z.object({});
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const text = (value: string): CallToolResult => ({ content: [{ type: "text", text: value }] });

/** A 2020-12 input schema with the keywords clients must pass through untouched. */
const CONTACT_SCHEMA = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  $defs: {
    address: {
      $anchor: "postalAddress",
      type: "object",
      properties: { street: { type: "string" }, city: { type: "string" } },
    },
  },
  properties: {
    name: { type: "string" },
    address: { $ref: "#/$defs/address" },
    reachBy: { type: "string", enum: ["phone", "email"] },
    phone: { type: "string" },
    email: { type: "string" },
  },
  allOf: [{ anyOf: [{ required: ["phone"] }, { required: ["email"] }] }],
  if: { properties: { reachBy: { const: "phone" } }, required: ["reachBy"] },
  // biome-ignore lint/suspicious/noThenProperty: a JSON Schema keyword, not a thenable.
  then: { required: ["phone"] },
  else: { required: ["email"] },
  additionalProperties: false,
} as const;

export function registerContentTools(server: McpServer): void {
  server.registerTool(
    "test_simple_text",
    { description: "Answers with one text block.", inputSchema: NO_ARGUMENTS },
    async () => text("This is a simple text response for testing."),
  );

  server.registerTool(
    "test_image_content",
    { description: "Answers with one PNG image block.", inputSchema: NO_ARGUMENTS },
    async () => ({
      content: [{ type: "image", data: RED_PIXEL_PNG, mimeType: "image/png" }],
    }),
  );

  server.registerTool(
    "test_audio_content",
    { description: "Answers with one WAV audio block.", inputSchema: NO_ARGUMENTS },
    async () => ({
      content: [{ type: "audio", data: SILENT_WAV, mimeType: "audio/wav" }],
    }),
  );

  server.registerTool(
    "test_embedded_resource",
    { description: "Answers with one embedded text resource.", inputSchema: NO_ARGUMENTS },
    async () => ({
      content: [
        {
          type: "resource",
          resource: {
            uri: "test://embedded-resource",
            mimeType: "text/plain",
            text: "This is an embedded resource content.",
          },
        },
      ],
    }),
  );

  server.registerTool(
    "test_multiple_content_types",
    { description: "Answers with a text, an image and an embedded resource.", inputSchema: NO_ARGUMENTS },
    async () => ({
      content: [
        { type: "text", text: "Multiple content types test:" },
        { type: "image", data: RED_PIXEL_PNG, mimeType: "image/png" },
        {
          type: "resource",
          resource: {
            uri: "test://mixed-content-resource",
            mimeType: "application/json",
            text: JSON.stringify({ test: "data", value: 123 }),
          },
        },
      ],
    }),
  );

  server.registerTool(
    "test_error_handling",
    { description: "Always fails, as a tool error.", inputSchema: NO_ARGUMENTS },
    async () => {
      throw new Error("This tool intentionally returns an error for testing");
    },
  );

  server.registerTool(
    "test_tool_with_logging",
    { description: "Sends three info log messages about 50 ms apart while it runs.", inputSchema: NO_ARGUMENTS },
    async (_args, ctx) => {
      for (const [index, message] of [
        "Tool execution started",
        "Tool processing data",
        "Tool execution completed",
      ].entries()) {
        if (index > 0) await sleep(50);
        await ctx.mcpReq.notify({ method: "notifications/message", params: { level: "info", data: message } });
      }
      return text("Tool with logging executed successfully");
    },
  );

  server.registerTool(
    "test_tool_with_progress",
    {
      description: "Reports progress 0, 50 and 100 of 100 when the call carries a progress token.",
      inputSchema: NO_ARGUMENTS,
    },
    async (_args, ctx) => {
      const progressToken = ctx.mcpReq._meta?.progressToken;
      for (const progress of [0, 50, 100]) {
        if (progressToken !== undefined) {
          await ctx.mcpReq.notify({
            method: "notifications/progress",
            params: { progressToken, progress, total: 100, message: `step ${progress} of 100` },
          });
        }
        if (progress < 100) await sleep(50);
      }
      return text(String(progressToken ?? "no progress token"));
    },
  );

  // Logs only when the request's _meta asks for a log level (2026-07-28), else nothing.
  server.registerTool(
    "test_logging_tool",
    { description: "Logs through the request's own log channel.", inputSchema: NO_ARGUMENTS },
    async (_args, ctx) => {
      await ctx.mcpReq.log("info", "test_logging_tool ran");
      return text("logged, if the request asked for a log level");
    },
  );

  server.registerTool(
    "test_streaming_elicitation",
    { description: "Answers plainly: its stream carries only the result.", inputSchema: NO_ARGUMENTS },
    async () => text("no server-to-client request on this stream"),
  );

  server.registerTool(
    "json_schema_2020_12_tool",
    {
      description: "Takes an input schema using JSON Schema 2020-12 keywords.",
      inputSchema: fromJsonSchema(CONTACT_SCHEMA),
    },
    async () => text("schema accepted"),
  );

  server.registerTool(
    "test_x_mcp_header",
    {
      description: "Its region argument is mirrored in the Mcp-Param-Region header, which the server checks.",
      // x-mcp-header is an MCP extension keyword that JSON Schema's types do not know.
      inputSchema: fromJsonSchema<{ region?: string }>({
        type: "object",
        properties: { region: { type: "string", "x-mcp-header": "Region" } },
      } as JsonSchemaType),
    },
    async (args) => text(`region=${args.region ?? "none"}`),
  );
}
