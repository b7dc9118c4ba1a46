/**
 * Conformance fixtures: the 2026-07-28 input_required scenarios. A tool
 * answers with the questions it has (elicitation, sampling, roots, several at
 * once, over several rounds), and the client retries the call with the answers
 * and the signed request state (see input.tools.ts).
 */
import {
  acceptedContent,
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  type InputRequests,
  inputRequired,
  inputResponse,
  type McpServer,
} from "@modelcontextprotocol/server";
import { z } from "zod/v4";
import { samplingText } from "./input-answers";
import { requestStates } from "./request-state";

const NO_ARGUMENTS = z.object({});
const text = (value: string): CallToolResult => ({ content: [{ type: "text", text: value }] });

const askName = (message: string) =>
  inputRequired.elicit({
    message,
    requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
  });

export function registerRoundTripTools(server: McpServer): void {
  server.registerTool(
    "test_input_required_result_elicitation",
    { description: "Asks for the user's name, then greets them.", inputSchema: NO_ARGUMENTS },
    async (_args, ctx) => {
      const name = acceptedContent<{ name: string }>(ctx.mcpReq.inputResponses, "user_name")?.name;
      // A retry without a usable answer is asked again rather than failed.
      if (typeof name !== "string")
        return inputRequired({ inputRequests: { user_name: askName("What is your name?") } });
      return text(`Hello, ${name}!`);
    },
  );

  server.registerTool(
    "test_input_required_result_sampling",
    { description: "Asks the client's model a question.", inputSchema: NO_ARGUMENTS },
    async (_args, ctx) => {
      const answer = samplingText(ctx, "capital_question");
      if (answer !== undefined) return text(`The model answered: ${answer}`);
      const question = inputRequired.createMessage({
        messages: [{ role: "user", content: { type: "text", text: "What is the capital of France?" } }],
        maxTokens: 100,
      });
      return inputRequired({ inputRequests: { capital_question: question } });
    },
  );

  server.registerTool(
    "test_input_required_result_list_roots",
    { description: "Asks for the client's roots.", inputSchema: NO_ARGUMENTS },
    async (_args, ctx) => {
      const answer = inputResponse(ctx.mcpReq.inputResponses, "client_roots");
      if (answer.kind === "roots") return text(`roots: ${answer.roots.map((root) => root.uri).join(", ") || "(none)"}`);
      return inputRequired({ inputRequests: { client_roots: inputRequired.listRoots() } });
    },
  );

  server.registerTool(
    "test_input_required_result_request_state",
    { description: "Round-trips signed state with a confirmation.", inputSchema: NO_ARGUMENTS },
    async (_args, ctx) => {
      const state = ctx.mcpReq.requestState<Record<string, unknown>>();
      if (state?.tool === "request_state" && acceptedContent(ctx.mcpReq.inputResponses, "confirm") !== undefined)
        return text("state-ok: the signed state came back intact");
      const confirm = inputRequired.elicit({
        message: "Please confirm",
        requestedSchema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] },
      });
      return inputRequired({
        inputRequests: { confirm },
        requestState: await requestStates().mint({ tool: "request_state" }),
      });
    },
  );

  server.registerTool(
    "test_input_required_result_multiple_inputs",
    { description: "Asks for a name, a greeting and the roots at once.", inputSchema: NO_ARGUMENTS },
    async (_args, ctx) => {
      const name = acceptedContent<{ name: string }>(ctx.mcpReq.inputResponses, "user_name")?.name;
      const greeting = samplingText(ctx, "greeting");
      const roots = inputResponse(ctx.mcpReq.inputResponses, "client_roots");
      if (name !== undefined && greeting !== undefined && roots.kind === "roots")
        return text(`${greeting} ${name} (${roots.roots.length} roots)`);
      const inputRequests: InputRequests = {
        user_name: askName("What is your name?"),
        greeting: inputRequired.createMessage({
          messages: [{ role: "user", content: { type: "text", text: "Generate a greeting" } }],
          maxTokens: 50,
        }),
        client_roots: inputRequired.listRoots(),
      };
      return inputRequired({ inputRequests, requestState: await requestStates().mint({ tool: "multiple_inputs" }) });
    },
  );

  server.registerTool(
    "test_input_required_result_multi_round",
    { description: "Two questions, one round each, then done.", inputSchema: NO_ARGUMENTS },
    async (_args, ctx) => {
      const state = ctx.mcpReq.requestState<Record<string, unknown>>();
      if (state?.round === 1) {
        const name = acceptedContent<{ name: string }>(ctx.mcpReq.inputResponses, "step1")?.name ?? "someone";
        const color = inputRequired.elicit({
          message: "Step 2: What is your favorite color?",
          requestedSchema: { type: "object", properties: { color: { type: "string" } }, required: ["color"] },
        });
        return inputRequired({
          inputRequests: { step2: color },
          requestState: await requestStates().mint({ round: 2, name }),
        });
      }
      if (state?.round === 2) {
        const color = acceptedContent<{ color: string }>(ctx.mcpReq.inputResponses, "step2")?.color ?? "no colour";
        return text(`${String(state.name)} likes ${color}`);
      }
      return inputRequired({
        inputRequests: { step1: askName("Step 1: What is your name?") },
        requestState: await requestStates().mint({ round: 1 }),
      });
    },
  );

  // A tampered state never reaches this handler: the server's verify hook refuses it with -32602.
  server.registerTool(
    "test_input_required_result_tampered_state",
    { description: "Refuses state that was changed on the way.", inputSchema: NO_ARGUMENTS },
    async (_args, ctx) => {
      if (
        ctx.mcpReq.requestState() !== undefined &&
        acceptedContent(ctx.mcpReq.inputResponses, "confirm") !== undefined
      )
        return text("integrity-ok");
      const confirm = inputRequired.elicit({
        message: "Please confirm",
        requestedSchema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] },
      });
      return inputRequired({
        inputRequests: { confirm },
        requestState: await requestStates().mint({ tool: "tampered_state" }),
      });
    },
  );

  server.registerTool(
    "test_input_required_result_capabilities",
    { description: "Asks only for what the client declared it can answer.", inputSchema: NO_ARGUMENTS },
    async (_args, ctx) => {
      if (ctx.mcpReq.inputResponses !== undefined)
        return text(`answered: ${Object.keys(ctx.mcpReq.inputResponses).sort().join(", ")}`);
      // The SDK types the envelope loosely; the capabilities are what the client declared on this request.
      const declared = (ctx.mcpReq.envelope as Record<string, ClientCapabilities | undefined> | undefined)?.[
        CLIENT_CAPABILITIES_META_KEY
      ];
      const inputRequests: InputRequests = {};
      if (declared?.elicitation !== undefined) inputRequests.user_name = askName("What is your name?");
      if (declared?.sampling !== undefined)
        inputRequests.greeting = inputRequired.createMessage({
          messages: [{ role: "user", content: { type: "text", text: "Say hello" } }],
          maxTokens: 20,
        });
      if (declared?.roots !== undefined) inputRequests.client_roots = inputRequired.listRoots();
      if (Object.keys(inputRequests).length === 0) return text("the client declared nothing it could be asked for");
      return inputRequired({ inputRequests });
    },
  );
}
