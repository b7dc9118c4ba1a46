import { describe, expect, it } from "vitest";
import { ALL_RESOURCES, ALL_TOOLS } from "../../src/mcp/server";
import { fetchWithEnv } from "../helpers/app-with-env";
import { MCP_URL } from "../helpers/mcp-client";
import { type JsonRpcMessage, mcpHeaders, rpc } from "../helpers/mcp-raw";
import { ACME_TOKEN, READER_TOKEN } from "../helpers/tokens";

// Which scope each tool and resource needs, and what a credential without it
// sees: the tool is not listed, and calling it is refused with 403 and a
// step-up challenge. No scope approves: there is no approve tool to grant.

/** The scope table (docs/oauth.md, "Scopes"), in tools/list order. Add a row here when a tool is added. */
const TOOL_SCOPES: Readonly<Record<string, string>> = {
  check_target: "traffic:read",
  preview_order: "traffic:read",
  send_orders: "traffic:send",
  start_traffic_run: "traffic:send",
  get_traffic_run: "traffic:read",
  stop_traffic_run: "traffic:send",
  compare_traffic_runs: "traffic:read",
  start_capacity_search: "traffic:send",
  get_capacity_search: "traffic:read",
  stop_capacity_search: "traffic:send",
  get_order_status: "orders:read",
  list_order_exceptions: "orders:read",
  get_order_details: "orders:read",
  get_order_audit_log: "orders:read",
  propose_resolution: "orders:propose",
  prepare_address_change: "orders:propose",
  cancel_order: "orders:propose",
  get_proposal: "orders:read",
  confirm_resolution: "orders:propose",
  apply_approved_change: "orders:propose",
  simulate_new_failure: "orders:propose",
  wait_for_approval: "orders:read",
};

const RESOURCE_SCOPES: Readonly<Record<string, string>> = {
  "synthetic://catalog": "traffic:read",
  "synthetic://batches": "traffic:read",
  "synthetic://runs": "traffic:read",
  "synthetic://runs/{run_id}": "traffic:read",
};

/** The dev tokens plus one narrowed to orders:read, as an MCP_TOKENS entry with "scopes" configures it. */
const WITH_READER = {
  MCP_TOKENS: JSON.stringify({
    [ACME_TOKEN]: { account: "acme", operator: "Ada" },
    [READER_TOKEN]: { account: "acme", operator: "Reader", scopes: ["orders:read"] },
  }),
};

function post(body: unknown, token = READER_TOKEN): Promise<Response> {
  return fetchWithEnv(
    new Request(MCP_URL, { method: "POST", headers: mcpHeaders({ token }), body: JSON.stringify(body) }),
    WITH_READER,
  );
}

async function result(response: Response): Promise<Record<string, unknown>> {
  expect(response.status).toBe(200);
  const body = (await response.json()) as JsonRpcMessage;
  expect(body.error).toBeUndefined();
  return body.result ?? {};
}

describe("the scope table", () => {
  it("every tool declares the scope the table gives it", () => {
    expect(Object.fromEntries(ALL_TOOLS.map((tool) => [tool.name, tool.scope]))).toEqual(TOOL_SCOPES);
  });

  it("every resource too", () => {
    expect(
      Object.fromEntries(
        ALL_RESOURCES.map((resource) => ["uri" in resource ? resource.uri : resource.uriTemplate, resource.scope]),
      ),
    ).toEqual(RESOURCE_SCOPES);
  });

  it("no tool approves anything", () => {
    expect(ALL_TOOLS.map((tool) => tool.name).filter((name) => /approve(?!d)/.test(name))).toEqual([]);
  });
});

describe("a static token narrowed by configuration", () => {
  it("lists only the tools and resources its scopes cover", async () => {
    const tools = (await result(await post(rpc(1, "tools/list")))).tools as Array<{ name: string }>;
    expect(tools.map((t) => t.name)).toEqual(
      Object.keys(TOOL_SCOPES).filter((name) => TOOL_SCOPES[name] === "orders:read"),
    );
    // No data resource is granted; only the MCP Apps cards (static HTML, no account data) are listed.
    const resources = (await result(await post(rpc(2, "resources/list")))).resources as Array<{ uri: string }>;
    expect(resources.length).toBeGreaterThan(0);
    expect(resources.filter((r) => !r.uri.startsWith("ui://"))).toEqual([]);
  });

  it("a full token still lists every tool", async () => {
    const tools = (await result(await post(rpc(1, "tools/list"), ACME_TOKEN))).tools as Array<{ name: string }>;
    expect(tools.map((t) => t.name)).toEqual(Object.keys(TOOL_SCOPES));
  });

  it("calling a tool outside its scopes: 403 insufficient_scope with the scope to ask for", async () => {
    const response = await post(rpc(3, "tools/call", { name: "send_orders", arguments: { count: 1 } }));
    expect(response.status).toBe(403);
    expect(response.headers.get("www-authenticate")).toBe(
      'Bearer realm="order-ops-edge", resource_metadata="http://localhost/.well-known/oauth-protected-resource/mcp", error="insufficient_scope", scope="traffic:send orders:read"',
    );
    expect(((await response.json()) as { message: string }).message).toBe(
      "send_orders needs the traffic:send scope, and this credential holds orders:read; connect again and allow traffic:send, or use a token that has it",
    );
  });

  it("reading a resource outside its scopes: 403 too", async () => {
    const response = await post(rpc(4, "resources/read", { uri: "synthetic://catalog" }));
    expect(response.status).toBe(403);
    expect(response.headers.get("www-authenticate")).toContain('scope="traffic:read orders:read"');
  });

  it("reading one run through the template outside its scopes: 403 too, naming the run's URI", async () => {
    const response = await post(rpc(4, "resources/read", { uri: "synthetic://runs/R-anything" }));
    expect(response.status).toBe(403);
    expect(response.headers.get("www-authenticate")).toContain('scope="traffic:read orders:read"');
    expect(((await response.json()) as { message: string }).message).toMatch(
      /^synthetic:\/\/runs\/R-anything needs the traffic:read scope/,
    );
  });

  it("one out-of-scope call in a batch refuses the whole batch", async () => {
    const response = await post([
      rpc(5, "tools/call", { name: "list_order_exceptions", arguments: {} }),
      rpc(6, "tools/call", { name: "propose_resolution", arguments: { order_id: "ORD-1008" } }),
    ]);
    expect(response.status).toBe(403);
  });

  it("a tool within its scopes runs", async () => {
    const called = await result(await post(rpc(7, "tools/call", { name: "list_order_exceptions", arguments: {} })));
    expect(called.isError ?? false).toBe(false);
  });

  it("an unknown tool is the SDK's to answer, not a scope refusal", async () => {
    const response = await post(rpc(8, "tools/call", { name: "approve_proposal", arguments: {} }));
    expect(response.status).toBe(200);
    const body = (await response.json()) as JsonRpcMessage;
    expect(JSON.stringify(body)).toContain("approve_proposal not found");
  });
});
