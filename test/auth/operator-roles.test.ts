import { describe, expect, it } from "vitest";
import { jsonTokenMap, McpTokenEntry } from "../../src/config/token-maps";
import { callToolRaw, connectWithOAuth, listedTools, ORIGIN, oauthFetch } from "../helpers/oauth";
import { ACME_ADMIN_TOKEN, ACME_MCP_VIEWER_TOKEN, ACME_TOKEN } from "../helpers/tokens";

// MCP credentials carry a role: a viewer reads, an operator also sends traffic
// and proposes, an admin also manages every grant of its account. A denial
// names the role that is needed.

const READ_TOOLS = [
  "check_target",
  "preview_order",
  "get_traffic_run",
  "compare_traffic_runs",
  "get_capacity_search",
  "get_order_status",
  "list_order_exceptions",
  "get_order_details",
  "get_order_audit_log",
  "get_proposal",
  "wait_for_approval",
];

interface GrantList {
  grants: Array<{ grant_id: string; client_id: string; operator: string }>;
}

async function grantsSeenBy(token: string): Promise<GrantList["grants"]> {
  const response = await oauthFetch(`${ORIGIN}/oauth/grants`, { headers: { authorization: `Bearer ${token}` } });
  expect(response.status).toBe(200);
  return ((await response.json()) as GrantList).grants;
}

describe("the role in MCP_TOKENS", () => {
  const parse = (entry: unknown) =>
    jsonTokenMap(McpTokenEntry, (holder) => holder.operator).safeParse(JSON.stringify({ "some-long-token": entry }));

  it("defaults to operator with every scope, and a viewer to the read scopes", () => {
    const operator = parse({ account: "acme", operator: "Ada" });
    expect(operator.success && operator.data.get("some-long-token")).toMatchObject({
      role: "operator",
      scopes: ["traffic:read", "traffic:send", "orders:read", "orders:propose"],
    });
    const viewer = parse({ account: "acme", operator: "Val", role: "viewer" });
    expect(viewer.success && viewer.data.get("some-long-token")).toMatchObject({
      role: "viewer",
      scopes: ["traffic:read", "orders:read"],
    });
  });

  it("refuses a viewer given a scope that writes, naming the role it needs", () => {
    const result = parse({
      account: "acme",
      operator: "Val",
      role: "viewer",
      scopes: ["orders:read", "orders:propose"],
    });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => issue.message).join("; ")).toContain(
      "entry 1: scopes: a viewer may hold only traffic:read, orders:read; orders:propose needs the operator role",
    );
  });

  it("refuses an unknown role", () => {
    const result = parse({ account: "acme", operator: "Val", role: "owner" });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => issue.message).join("; ")).toMatch(
      /entry 1: role: .*viewer.*operator.*admin/,
    );
  });
});

describe("a viewer at /mcp", () => {
  it("is listed the read tools only", async () => {
    expect(await listedTools(ACME_MCP_VIEWER_TOKEN)).toEqual(READ_TOOLS);
  });

  it("calling a tool that writes: 403 naming the operator role, without a step-up challenge", async () => {
    const response = await callToolRaw(ACME_MCP_VIEWER_TOKEN, "propose_resolution", { order_id: "ORD-1008" });
    expect(response.status).toBe(403);
    expect(response.headers.get("www-authenticate")).toBeNull();
    expect(await response.json()).toEqual({
      code: "forbidden",
      message:
        "propose_resolution needs the operator role (it uses orders:propose), and this credential's role is viewer, which may only read; use a token with the operator or admin role",
    });
  });

  it("an OAuth grant signed by a viewer acts as a viewer", async () => {
    const { tokens } = await connectWithOAuth(["orders:read"], ACME_MCP_VIEWER_TOKEN);
    const response = await callToolRaw(tokens.access_token, "send_orders", { count: 1 });
    expect(response.status).toBe(403);
    expect(((await response.json()) as { message: string }).message).toContain("send_orders needs the operator role");
    expect((await callToolRaw(tokens.access_token, "list_order_exceptions")).status).toBe(200);
  });
});

describe("an admin and the account's grants", () => {
  it("sees and revokes another operator's grant; that operator does not see the admin's", async () => {
    const ada = await connectWithOAuth(["orders:read"], ACME_TOKEN);
    const admins = await connectWithOAuth(["orders:read"], ACME_ADMIN_TOKEN);
    const seen = await grantsSeenBy(ACME_ADMIN_TOKEN);
    const adasGrant = seen.find((grant) => grant.client_id === ada.client.client_id);
    expect(adasGrant?.operator).toBe("Ada Ops (acme, local dev)");
    expect((await grantsSeenBy(ACME_TOKEN)).map((grant) => grant.client_id)).not.toContain(admins.client.client_id);

    const revoked = await oauthFetch(`${ORIGIN}/oauth/grants/${adasGrant?.grant_id}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${ACME_ADMIN_TOKEN}` },
    });
    expect(revoked.status).toBe(200);
    expect((await callToolRaw(ada.tokens.access_token, "list_order_exceptions")).status).toBe(401);
  });

  it("an operator cannot revoke the admin's grant", async () => {
    const admins = await connectWithOAuth(["orders:read"], ACME_ADMIN_TOKEN);
    const grantId = (await grantsSeenBy(ACME_ADMIN_TOKEN)).find(
      (grant) => grant.client_id === admins.client.client_id,
    )?.grant_id;
    const refused = await oauthFetch(`${ORIGIN}/oauth/grants/${grantId}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${ACME_TOKEN}` },
    });
    expect(refused.status).toBe(404);
    expect((await callToolRaw(admins.tokens.access_token, "list_order_exceptions")).status).toBe(200);
  });
});
