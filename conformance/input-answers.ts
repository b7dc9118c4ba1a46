/**
 * Conformance fixtures: what the client answered to an input request, read by
 * the key the request was made under (input.tools.ts, input-round-trip.tools.ts).
 */
import { inputResponse, type ServerContext } from "@modelcontextprotocol/server";

/** The elicitation's action and content, if the client answered it. */
export function elicitationOutcome(ctx: ServerContext, key: string): string | undefined {
  const answer = inputResponse(ctx.mcpReq.inputResponses, key);
  if (answer.kind !== "elicit") return undefined;
  return `action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`;
}

/** The text the client's model answered, if it did. */
export function samplingText(ctx: ServerContext, key: string): string | undefined {
  const answer = inputResponse(ctx.mcpReq.inputResponses, key);
  if (answer.kind !== "sampling") return undefined;
  const content = answer.result.content;
  const first = Array.isArray(content) ? content[0] : content;
  return first?.type === "text" ? first.text : JSON.stringify(first);
}
