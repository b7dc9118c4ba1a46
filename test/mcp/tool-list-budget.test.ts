import { beforeAll, describe, expect, it } from "vitest";
import { initializeRequest, jsonAnswer, postMcp, rpc } from "../helpers/mcp-raw";
import { ACME_TOKEN } from "../helpers/tokens";
import { listBytes, type ToolBytes, toolBytes } from "../helpers/tool-list-bytes";

// Every agent is handed the tool list before its first word. These are the
// operator's listing's budgets (issue 55): what a model reads (names,
// descriptions, input schemas) and what every client downloads and validates
// (with the output schemas). Each tool's share is pinned with a little
// headroom, so a longer description or a fuller schema fails naming its tool;
// lower a figure when a tool gets cheaper.

const LIST_BUDGET = { withoutOutput: 24_000, whole: 40_000 } as const;

/** Bytes of each tool's tools/list entry: [without outputSchema, whole]. */
const TOOL_BUDGET: Record<string, readonly [number, number]> = {
  check_target: [490, 950],
  preview_order: [810, 1130],
  send_orders: [1050, 1620],
  start_traffic_run: [3900, 4150],
  get_traffic_run: [980, 2470],
  stop_traffic_run: [630, 880],
  compare_traffic_runs: [1040, 1560],
  start_capacity_search: [3100, 3400],
  get_capacity_search: [1000, 2250],
  stop_capacity_search: [690, 980],
  get_order_status: [620, 830],
  list_order_exceptions: [690, 890],
  get_order_details: [830, 1830],
  get_order_audit_log: [940, 1210],
  propose_resolution: [1060, 1460],
  prepare_address_change: [1620, 2010],
  cancel_order: [1020, 1420],
  get_proposal: [810, 2920],
  confirm_resolution: [1130, 1850],
  apply_approved_change: [1140, 1860],
  simulate_new_failure: [490, 800],
  wait_for_approval: [1060, 1600],
};

async function operatorListing(): Promise<{ name: string; outputSchema?: unknown }[]> {
  await postMcp(initializeRequest(1, "2025-11-25"), { token: ACME_TOKEN });
  const answer = await jsonAnswer(
    await postMcp(rpc(2, "tools/list"), { token: ACME_TOKEN, headers: { "mcp-protocol-version": "2025-11-25" } }),
  );
  return (answer.result as { tools: { name: string; outputSchema?: unknown }[] }).tools;
}

describe("the operator's tools/list is sized for a model", () => {
  let tools: { name: string; outputSchema?: unknown }[];
  let shares: ToolBytes[];

  beforeAll(async () => {
    tools = await operatorListing();
    shares = toolBytes(tools);
  });

  it(`reads at most ${LIST_BUDGET.withoutOutput} bytes without output schemas and ${LIST_BUDGET.whole} with them`, () => {
    const bytes = listBytes(tools);
    expect(bytes.withoutOutput).toBeLessThanOrEqual(LIST_BUDGET.withoutOutput);
    expect(bytes.whole).toBeLessThanOrEqual(LIST_BUDGET.whole);
  });

  it("pins a share for every listed tool, and only for listed tools", () => {
    expect(shares.map((s) => s.name).sort()).toEqual(Object.keys(TOOL_BUDGET).sort());
  });

  it.each(Object.entries(TOOL_BUDGET))("%s stays within its share: %j bytes", (name, [withoutOutput, whole]) => {
    const share = shares.find((s) => s.name === name);
    expect(share?.withoutOutput, `${name} without its outputSchema`).toBeLessThanOrEqual(withoutOutput);
    expect(share?.whole, `${name} with its outputSchema`).toBeLessThanOrEqual(whole);
  });

  it("publishes each output schema once in full: a tool that answers what another outlines names its identifying fields", () => {
    const outline = (name: string) =>
      Object.keys(
        (tools.find((t) => t.name === name)?.outputSchema as { properties?: object } | undefined)?.properties ?? {},
      );
    expect(outline("get_traffic_run").length).toBeGreaterThan(10);
    expect(outline("start_traffic_run")).toEqual(["run_id", "status", "run_url"]);
    expect(outline("propose_resolution").sort()).toEqual([
      "approval_url",
      "expires_at",
      "order_id",
      "proposal_id",
      "status",
    ]);
    expect(outline("get_proposal")).toEqual(expect.arrayContaining(["proposal_id", "approvals", "provider_apply"]));
  });

  it("output schemas carry no prose and no nested field lists", () => {
    const listed = JSON.stringify(tools.map((t) => t.outputSchema));
    expect(listed).not.toContain('"description"');
    for (const tool of tools) {
      const properties = (tool.outputSchema as { properties: Record<string, { properties?: unknown }> }).properties;
      for (const [field, schema] of Object.entries(properties))
        expect(schema.properties, `${tool.name}.${field}`).toBeUndefined();
    }
  });
});
