import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLIENT_GENERATIONS, type McpTestClient } from "../helpers/mcp-client";
import { ACME_TOKEN } from "../helpers/tokens";

// The prompts an MCP client sees (hosts show them as slash commands),
// identical for a 2025 client (v1 SDK) and a 2026-07-28 client (v2 SDK):
// names, arguments, and texts that name real tools in the order to call
// them. Which credential sees which prompt is in prompts-scopes.test.ts.

interface ExpectedPrompt {
  /** Argument names, in the order listed, and whether each is required. */
  readonly arguments: Readonly<Record<string, boolean>>;
  /** Arguments for prompts/get in this test. */
  readonly sample: Readonly<Record<string, string>>;
  /** The tools its text names, in the order it names them first. */
  readonly tools: readonly string[];
}

const EXPECTED_PROMPTS: Readonly<Record<string, ExpectedPrompt>> = {
  triage_exceptions: { arguments: { top: false }, sample: {}, tools: ["list_order_exceptions", "get_order_details"] },
  explain_order: {
    arguments: { order_id: true },
    sample: { order_id: "ORD-1008" },
    tools: ["get_order_details", "get_order_audit_log"],
  },
  propose_and_wait: {
    arguments: { order_id: true, new_address: false },
    sample: { order_id: "ORD-1017" },
    tools: [
      "get_order_details",
      "propose_resolution",
      "wait_for_approval",
      "confirm_resolution",
      "get_order_audit_log",
    ],
  },
  load_test: {
    arguments: { rate_per_second: true, duration_seconds: false, p99_ms: false, ramp_seconds: false },
    sample: { rate_per_second: "20", duration_seconds: "300", p99_ms: "250", ramp_seconds: "60" },
    tools: ["check_target", "start_traffic_run", "get_traffic_run", "stop_traffic_run"],
  },
  capacity_search: {
    arguments: { p99_ms: false, lowest_rate: false, highest_rate: false, step_seconds: false },
    sample: { p99_ms: "300", lowest_rate: "10", highest_rate: "40", step_seconds: "10" },
    tools: ["check_target", "start_capacity_search", "get_capacity_search", "stop_capacity_search"],
  },
  rejection_drill: {
    arguments: { count: false },
    sample: { count: "5" },
    tools: ["check_target", "preview_order", "send_orders"],
  },
};

/** The listed tools' names that occur in `text`, in the order each first occurs. */
function toolsNamed(text: string, toolNames: readonly string[]): string[] {
  return toolNames
    .map((name) => ({ name, at: text.search(new RegExp(`\\b${name}\\b`)) }))
    .filter(({ at }) => at >= 0)
    .sort((a, b) => a.at - b.at)
    .map(({ name }) => name);
}

/** The one user message a prompt renders to. */
async function promptText(client: McpTestClient, name: string, args: Record<string, string>): Promise<string> {
  const rendered = await client.getPrompt({ name, arguments: args });
  expect(rendered.messages).toHaveLength(1);
  const [message] = rendered.messages;
  expect(message?.role).toBe("user");
  expect(message?.content.type).toBe("text");
  return message?.content.text ?? "";
}

describe.each(CLIENT_GENERATIONS)("through the $label (protocol $protocol)", (generation) => {
  let client: McpTestClient;
  let toolNames: string[];

  beforeAll(async () => {
    client = await generation.connect(ACME_TOKEN, "contract-prompts");
    toolNames = ((await client.listTools()).tools as { name: string }[]).map((t) => t.name);
  });
  afterAll(async () => {
    await client.close();
  });

  it("the server declares prompts, and promises no list_changed notification it never sends", () => {
    expect(client.getServerCapabilities()?.prompts).toEqual({ listChanged: false });
  });

  it("lists exactly the workflow prompts, each with a title, a real description and its arguments", async () => {
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(Object.keys(EXPECTED_PROMPTS));
    for (const prompt of prompts) {
      const expected = EXPECTED_PROMPTS[prompt.name];
      expect((prompt.title ?? "").length, prompt.name).toBeGreaterThanOrEqual(8);
      expect((prompt.description ?? "").length, prompt.name).toBeGreaterThanOrEqual(60);
      expect(
        Object.fromEntries((prompt.arguments ?? []).map((a) => [a.name, a.required ?? false])),
        prompt.name,
      ).toEqual(expected?.arguments);
      for (const argument of prompt.arguments ?? [])
        expect((argument.description ?? "").length, `${prompt.name}.${argument.name}`).toBeGreaterThan(10);
    }
  });

  it.each(Object.entries(EXPECTED_PROMPTS))(
    "%s names real tools, in the order to call them",
    async (name, expected) => {
      const text = await promptText(client, name, { ...expected.sample });
      expect(toolsNamed(text, toolNames)).toEqual(expected.tools);
      // Every snake_case name with a call is a listed tool: the text sends the model to nothing that does not exist.
      const called = [...text.matchAll(/\bcall ([a-z]+(?:_[a-z]+)+)/gi)].map((m) => m[1] ?? "");
      expect(called.filter((tool) => !toolNames.includes(tool))).toEqual([]);
      expect(text).not.toMatch(/\bapprove (it|the proposal) yourself\b/i);
    },
  );

  it("arguments reach the text, and defaults stand in for the optional ones", async () => {
    expect(await promptText(client, "explain_order", { order_id: "ORD-1008" })).toContain(
      'get_order_details with order_id "ORD-1008"',
    );
    expect(await promptText(client, "triage_exceptions", { top: "5" })).toContain("For each of the first 5 orders");
    expect(await promptText(client, "triage_exceptions", {})).toContain("For each of the first 3 orders");
    const load = await promptText(client, "load_test", { rate_per_second: "2.5" });
    expect(load).toContain("start_traffic_run with rate_per_second 2.5, duration_seconds 60, mode");
    expect(load).toContain("p99 latency is over 500 ms");
    // This server's caps (MAX_RUN_RATE 50, MAX_RUN_SECONDS 900 in the test environment) and MAX_BATCH.
    expect(load).toContain("at most 50 orders per second and 900 seconds");
    const search = await promptText(client, "capacity_search", { p99_ms: "250", highest_rate: "40" });
    expect(search).toContain(
      'objective [{"metric": "p99_ms", "op": "<", "value": 250}, {"metric": "error_rate", "op": "<", "value": 0.01}], lowest_rate 10, highest_rate 40 (this server allows at most 50, MAX_RUN_RATE), step_seconds 10',
    );
    expect(await promptText(client, "capacity_search", {})).toContain("highest_rate 50 (");
    expect(await promptText(client, "rejection_drill", {})).toContain(
      "send_orders with count 5 (at most 100, this server's MAX_BATCH)",
    );
  });

  it("the load test reports the run's verdict against its threshold", async () => {
    const text = await promptText(client, "load_test", { ...EXPECTED_PROMPTS.load_test?.sample });
    expect(text).toContain("thresholds that fail the run if its p99 latency is over 250 ms");
    expect(text).toContain("Report the run's verdict: passed, failed, or inconclusive");
  });

  it("propose_and_wait with a new address proposes an address change and applies it with apply_approved_change", async () => {
    const text = await promptText(client, "propose_and_wait", {
      order_id: "ORD-1012",
      new_address: "Northwind Receiving, 12 Pine St, Austin TX 78701, US",
    });
    expect(toolsNamed(text, toolNames)).toEqual([
      "get_order_details",
      "prepare_address_change",
      "wait_for_approval",
      "apply_approved_change",
      "get_order_audit_log",
    ]);
    expect(text).toContain("12 Pine St, Austin TX 78701");
    expect(text).toContain("You cannot approve it");
  });

  it("a missing required argument or a number that is not one is refused with -32602, naming the argument", async () => {
    const refusal = (args: Record<string, string>, name = "load_test") =>
      client.getPrompt({ name, arguments: args }).then(
        () => undefined,
        (e: { code?: number; message?: string }) => e,
      );
    const missing = await refusal({});
    expect(missing?.code).toBe(-32602);
    expect(missing?.message).toContain("rate_per_second");
    const notANumber = await refusal({ rate_per_second: "fast" });
    expect(notANumber?.code).toBe(-32602);
    // One readable line (the v1 client prefixes "MCP error -32602: ").
    expect(notANumber?.message).toMatch(
      /(^|: )Invalid arguments for prompt load_test: rate_per_second: give a number above 0, such as 20 or 2\.5$/,
    );
    expect((await refusal({ rate_per_second: "0.0" }))?.message).toContain("give a number above 0");
    expect((await refusal({ order_id: "" }, "explain_order"))?.code).toBe(-32602);
    expect((await refusal({}, "no_such_prompt"))?.message).toContain("no_such_prompt");
  });
});
