/**
 * The journeys of journeys.ts against a running server: tools over MCP with
 * the operator's token, approvals through the approval API with the dev
 * approvers' tokens (.dev.vars), and what tools/list costs the same operator.
 */
import { type JourneyPort, type JourneyStep, loadTest, opsLoop } from "./journeys.ts";
import { rawRpc } from "./mcp.ts";

const APPROVERS = ["acme-approver-dev-token", "acme-second-approver-dev-token"];

function portOf(baseUrl: string, token: string): JourneyPort {
  return {
    async call(name, args = {}) {
      const result = await rawRpc(baseUrl, token, "tools/call", { name, arguments: args });
      const blocks = (result.content ?? []) as { text?: string }[];
      return {
        text: blocks.map((block) => block.text ?? "").join(""),
        structured: (result.structuredContent ?? {}) as Record<string, unknown>,
      };
    },
    async approve(proposalId, approvalsRequired) {
      for (const approver of APPROVERS.slice(0, approvalsRequired)) {
        const response = await fetch(`${baseUrl}/api/approvals/${encodeURIComponent(proposalId)}`, {
          method: "POST",
          headers: { authorization: `Bearer ${approver}`, "content-type": "application/json" },
          body: JSON.stringify({ decision: "approve", reason: "bench journey" }),
        });
        const body = await response.text();
        if (!response.ok) throw new Error(`approving ${proposalId}: HTTP ${response.status} ${body.slice(0, 200)}`);
      }
    },
  };
}

export async function journeyFigures(
  baseUrl: string,
  token: string,
): Promise<{ opsLoop: JourneyStep[]; loadTest: JourneyStep[] }> {
  const port = portOf(baseUrl, token);
  return { opsLoop: await opsLoop(port), loadTest: await loadTest(port) };
}

/** tools/list as the operator gets it, in bytes of JSON: whole, and without output schemas. */
export async function toolListBytes(baseUrl: string, token: string): Promise<{ whole: number; withoutOutput: number }> {
  const { tools } = (await rawRpc(baseUrl, token, "tools/list")) as { tools: Record<string, unknown>[] };
  const bytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value)).byteLength;
  return {
    whole: bytes({ tools }),
    withoutOutput: bytes({ tools: tools.map(({ outputSchema: _o, ...rest }) => rest) }),
  };
}
