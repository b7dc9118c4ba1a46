/**
 * Conformance fixtures: tools that need input from the client (elicitation,
 * sampling, roots). Each is written once with `inputRequired(...)`: a
 * 2026-07-28 client answers in a retried request (multi-round-trip). On a
 * 2025 revision the SDK would have to send a request to the client and wait
 * for its answer in a later HTTP request, which a stateless server cannot
 * receive; the SDK says so in the tool's error instead of waiting.
 *
 * Here are the 2025 scenarios' tools (sampling, elicitation, its defaults and
 * enum forms, a missing capability); the 2026-07-28 input_required scenarios'
 * are in input-round-trip.tools.ts.
 */
import { type CallToolResult, inputRequired, type McpServer } from "@modelcontextprotocol/server";
import { z } from "zod/v4";
import { elicitationOutcome, samplingText } from "./input-answers";
import { registerRoundTripTools } from "./input-round-trip.tools";

const NO_ARGUMENTS = z.object({});
const text = (value: string): CallToolResult => ({ content: [{ type: "text", text: value }] });

/** Elicitation schemas from the 2025 scenarios: defaults for every primitive, and every enum form. */
const DEFAULTS_SCHEMA = {
  type: "object" as const,
  properties: {
    name: { type: "string" as const, default: "John Doe" },
    age: { type: "integer" as const, default: 30 },
    score: { type: "number" as const, default: 95.5 },
    status: { type: "string" as const, enum: ["active", "inactive", "pending"], default: "active" },
    verified: { type: "boolean" as const, default: true },
  },
};

const ENUMS_SCHEMA = {
  type: "object" as const,
  properties: {
    untitledSingle: { type: "string" as const, enum: ["option1", "option2", "option3"] },
    titledSingle: {
      type: "string" as const,
      oneOf: [
        { const: "value1", title: "First Option" },
        { const: "value2", title: "Second Option" },
      ],
    },
    legacyTitled: {
      type: "string" as const,
      enum: ["opt1", "opt2", "opt3"],
      enumNames: ["Option One", "Option Two", "Option Three"],
    },
    untitledMulti: {
      type: "array" as const,
      items: { type: "string" as const, enum: ["option1", "option2", "option3"] },
    },
    titledMulti: {
      type: "array" as const,
      items: {
        anyOf: [
          { const: "value1", title: "First Choice" },
          { const: "value2", title: "Second Choice" },
        ],
      },
    },
  },
};

function registerClassicInputTools(server: McpServer): void {
  server.registerTool(
    "test_sampling",
    { description: "Asks the client's model to answer a prompt.", inputSchema: z.object({ prompt: z.string() }) },
    async ({ prompt }, ctx) => {
      const answer = samplingText(ctx, "answer");
      if (answer !== undefined) return text(`LLM response: ${answer}`);
      return inputRequired({
        inputRequests: {
          answer: inputRequired.createMessage({
            messages: [{ role: "user", content: { type: "text", text: prompt } }],
            maxTokens: 100,
          }),
        },
      });
    },
  );

  server.registerTool(
    "test_elicitation",
    { description: "Asks the user for a username and an email.", inputSchema: z.object({ message: z.string() }) },
    async ({ message }, ctx) => {
      const outcome = elicitationOutcome(ctx, "user");
      if (outcome !== undefined) return text(`User response: ${outcome}`);
      const requestedSchema = {
        type: "object" as const,
        properties: {
          username: { type: "string" as const, description: "User's response" },
          email: { type: "string" as const, description: "User's email address" },
        },
        required: ["username", "email"],
      };
      return inputRequired({ inputRequests: { user: inputRequired.elicit({ message, requestedSchema }) } });
    },
  );

  for (const [name, description, requestedSchema] of [
    [
      "test_elicitation_sep1034_defaults",
      "Asks for one value of each primitive type, each with a default.",
      DEFAULTS_SCHEMA,
    ],
    ["test_elicitation_sep1330_enums", "Asks for choices in each of the five enum forms.", ENUMS_SCHEMA],
  ] as const) {
    server.registerTool(name, { description, inputSchema: NO_ARGUMENTS }, async (_args, ctx) => {
      const outcome = elicitationOutcome(ctx, "form");
      if (outcome !== undefined) return text(`Elicitation completed: ${outcome}`);
      return inputRequired({
        inputRequests: { form: inputRequired.elicit({ message: description, requestedSchema }) },
      });
    });
  }

  // The client declares no sampling capability, so the SDK refuses this with -32021.
  server.registerTool(
    "test_missing_capability",
    { description: "Needs the client's sampling capability.", inputSchema: NO_ARGUMENTS },
    async (_args, ctx) => {
      if (samplingText(ctx, "pong") !== undefined) return text("sampled");
      return inputRequired({
        inputRequests: {
          pong: inputRequired.createMessage({
            messages: [{ role: "user", content: { type: "text", text: "Say pong" } }],
            maxTokens: 8,
          }),
        },
      });
    },
  );
}

export function registerInputTools(server: McpServer): void {
  registerClassicInputTools(server);
  registerRoundTripTools(server);
}
