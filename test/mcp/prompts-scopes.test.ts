import { describe, expect, it } from "vitest";
import { knownScopes } from "../../src/core/scopes";
import { workflowPrompts } from "../../src/mcp/prompts";
import { ALL_TOOLS } from "../../src/mcp/server";
import { fetchWithEnv } from "../helpers/app-with-env";
import { MCP_URL } from "../helpers/mcp-client";
import { type JsonRpcMessage, mcpHeaders, rpc } from "../helpers/mcp-raw";
import { ACME_TOKEN } from "../helpers/tokens";

// Which credential sees which prompt: a prompt is listed only when the
// credential may call every tool it names. Beside the conformance fixtures:
// test/conformance/prompts.test.ts.

/** The scopes each prompt needs, as its tools declare them (docs/clients.md, "Prompts"). */
const PROMPT_SCOPES: Readonly<Record<string, readonly string[]>> = {
  triage_exceptions: ["orders:read"],
  explain_order: ["orders:read"],
  propose_and_wait: ["orders:read", "orders:propose"],
  load_test: ["traffic:read", "traffic:send"],
  capacity_search: ["traffic:read", "traffic:send"],
  rejection_drill: ["traffic:read", "traffic:send"],
};

const READER = "prompt-orders-reader";
const TRAFFIC_WATCHER = "prompt-traffic-watcher";
const TOKENS = {
  MCP_TOKENS: JSON.stringify({
    [ACME_TOKEN]: { account: "acme", operator: "Ada" },
    [READER]: { account: "acme", operator: "Reader", scopes: ["orders:read"] },
    [TRAFFIC_WATCHER]: { account: "acme", operator: "Watcher", scopes: ["traffic:read"] },
  }),
};

async function answer(
  body: unknown,
  token: string,
  overrides: Record<string, unknown> = TOKENS,
): Promise<JsonRpcMessage> {
  const response = await fetchWithEnv(
    new Request(MCP_URL, { method: "POST", headers: mcpHeaders({ token }), body: JSON.stringify(body) }),
    overrides,
  );
  expect(response.status).toBe(200);
  return (await response.json()) as JsonRpcMessage;
}

async function promptNames(token: string, overrides?: Record<string, unknown>): Promise<string[]> {
  const listed = await answer(rpc(1, "prompts/list"), token, overrides);
  expect(listed.error).toBeUndefined();
  return ((listed.result?.prompts ?? []) as { name: string }[]).map((p) => p.name);
}

describe("the scopes a prompt needs are its tools' scopes", () => {
  it.each(workflowPrompts.map((p) => [p.name, p] as const))("%s", (name, prompt) => {
    const scopes = prompt.tools.map((tool) => ALL_TOOLS.find((t) => t.name === tool)?.scope ?? `unknown tool ${tool}`);
    expect(knownScopes(scopes)).toEqual(PROMPT_SCOPES[name]);
    expect(scopes.filter((scope) => scope.startsWith("unknown"))).toEqual([]);
  });
});

describe("listing follows the credential's scopes", () => {
  it("a full token sees every prompt", async () => {
    expect(await promptNames(ACME_TOKEN)).toEqual(Object.keys(PROMPT_SCOPES));
  });

  it("orders:read alone sees the two that only read orders", async () => {
    expect(await promptNames(READER)).toEqual(["triage_exceptions", "explain_order"]);
  });

  it("a prompt it may not run is not found, exactly like an unknown one", async () => {
    const hidden = await answer(
      rpc(2, "prompts/get", { name: "propose_and_wait", arguments: { order_id: "ORD-1008" } }),
      READER,
    );
    const unknown = await answer(rpc(2, "prompts/get", { name: "no_such_prompt", arguments: {} }), READER);
    expect(hidden.error?.code).toBe(-32602);
    expect(hidden.error?.message).toBe("Prompt propose_and_wait not found");
    expect(unknown.error?.message).toBe("Prompt no_such_prompt not found");
  });

  it("traffic:read alone may run none of them: an empty list, not an error", async () => {
    expect(await promptNames(TRAFFIC_WATCHER)).toEqual([]);
  });
});
