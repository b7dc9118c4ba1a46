import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import app from "../../conformance/worker";
import { MCP_URL } from "../helpers/mcp-client";
import { type JsonRpcMessage, mcpHeaders, rpc } from "../helpers/mcp-raw";
import { ACME_TOKEN } from "../helpers/tokens";

// The development entry with CONFORMANCE_FIXTURES=on serves the suite's test
// prompts beside the workflow prompts: both are listed, both answer, and the
// server still declares prompts.

const fixtureEnv = { ...env, CONFORMANCE_FIXTURES: "on" };

async function answer(body: unknown): Promise<JsonRpcMessage> {
  const request = new Request(MCP_URL, {
    method: "POST",
    headers: mcpHeaders({ token: ACME_TOKEN }),
    body: JSON.stringify(body),
  });
  const response = await app.fetch(request, fixtureEnv, createExecutionContext());
  expect(response.status).toBe(200);
  return (await response.json()) as JsonRpcMessage;
}

describe("the workflow prompts beside the conformance fixtures", () => {
  it("both sets are listed, and prompts stay declared", async () => {
    const listed = await answer(rpc(1, "prompts/list"));
    const names = ((listed.result?.prompts ?? []) as { name: string }[]).map((p) => p.name);
    expect(names).toEqual(
      expect.arrayContaining([
        "triage_exceptions",
        "explain_order",
        "propose_and_wait",
        "load_test",
        "capacity_search",
        "rejection_drill",
        "test_simple_prompt",
        "test_prompt_with_arguments",
      ]),
    );
    const init = await answer(
      rpc(2, "initialize", {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "prompts", version: "1" },
      }),
    );
    expect((init.result?.capabilities as { prompts?: unknown } | undefined)?.prompts).toEqual({ listChanged: false });
  });

  it("a fixture prompt and a workflow prompt both answer", async () => {
    const fixture = await answer(rpc(3, "prompts/get", { name: "test_simple_prompt" }));
    expect(JSON.stringify(fixture.result)).toContain("This is a simple prompt for testing.");
    const ours = await answer(rpc(4, "prompts/get", { name: "explain_order", arguments: { order_id: "ORD-1008" } }));
    expect(JSON.stringify(ours.result)).toContain('get_order_details with order_id \\"ORD-1008\\"');
  });
});
