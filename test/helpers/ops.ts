/**
 * Helpers for the order-operations and approval tests: the operations tools
 * over MCP, the scripted approval API, and the AccountAgent's proposal table.
 * Fresh orders come from ./fresh-orders, row counts from ./rows.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { CHANGE_KINDS } from "../../src/orders/change-kinds";
import { type AuditLog, ORDER_NOT_FOUND_MESSAGE, type OrderDetails } from "../../src/orders/tool-outputs";
import type { ConfirmResult, ProposalView } from "../../src/proposals/proposal-schemas";
import { type ExceptionKind, insertFreshOrder } from "./fresh-orders";
import { type McpTestClient, workerFetch } from "./mcp-client";
import { ACME_APPROVER_TOKEN } from "./tokens";
import { structuredOf, type ToolCallResult, toolErrorOf } from "./tool-results";

export const BASE_URL = "http://localhost";
export const ACME_OPERATOR = "Ada Ops (acme, local dev)";
export const ACME_APPROVER = "Avery Approver (acme, local dev)";
/** PROPOSAL_TTL_MINUTES is unset in .dev.vars and 15 in wrangler.toml. */
export const PROPOSAL_TTL_MS = 15 * 60_000;

// ------------------------------------------------------------------ MCP calls

/** The tool error for an order id the caller's account does not have. */
export const ORDER_NOT_FOUND = ORDER_NOT_FOUND_MESSAGE;

export async function callTool(
  client: McpTestClient,
  name: string,
  args: Record<string, unknown> = {},
): Promise<ToolCallResult> {
  return (await client.callTool({ name, arguments: args })) as ToolCallResult;
}

export async function callOk<T>(client: McpTestClient, name: string, args: Record<string, unknown> = {}): Promise<T> {
  return structuredOf<T>(await callTool(client, name, args));
}

export async function callError(
  client: McpTestClient,
  name: string,
  args: Record<string, unknown> = {},
): Promise<string> {
  return toolErrorOf(await callTool(client, name, args));
}

export function propose(client: McpTestClient, orderId: string): Promise<ProposalView> {
  return callOk<ProposalView>(client, "propose_resolution", { order_id: orderId });
}

/** The fields every fresh proposal has, whatever its kind. */
export function expectWellFormed(proposal: ProposalView, orderId: string): void {
  expect(proposal.proposal_id).toMatch(/^prop_[A-Za-z0-9_-]{20}$/);
  expect(proposal.order_id).toBe(orderId);
  expect(proposal.status).toBe("pending_approval");
  expect(proposal.approval_url).toBe(`${BASE_URL}/approvals/${proposal.proposal_id}`);
  expect(proposal.approval_url.endsWith(`/approvals/${proposal.proposal_id}`)).toBe(true);
  expect(Date.parse(proposal.expires_at) - Date.parse(proposal.created_at)).toBe(PROPOSAL_TTL_MS);
  expect(Math.abs(Date.parse(proposal.created_at) - Date.now())).toBeLessThan(60_000);
  expect(proposal.created_by).toBe(ACME_OPERATOR);
  expect(proposal.expected_changes.length).toBeGreaterThan(0);
  expect(proposal).toMatchObject({ decided_by: null, decided_at: null, decision_reason: null, outcome: null });
  // The pinned change is shown, so a reader sees exactly what will be applied.
  expect(proposal.change).toMatchObject({ kind: proposal.kind, action: proposal.action });
}

/** A fresh order with this exception, and the resolution proposed for it. */
export async function proposalFor(
  client: McpTestClient,
  kind: ExceptionKind,
): Promise<{ orderId: string; proposal: ProposalView }> {
  const orderId = await insertFreshOrder({ exception: kind });
  return { orderId, proposal: await propose(client, orderId) };
}

/** An address change as a user might type it, and the normalized form the product pins. */
export const RIVER_ROAD_ADDRESS = {
  recipient: "Maya Lindqvist",
  line1: "77 RIVER ROAD",
  line2: "",
  city: "bend",
  region: "or",
  postal_code: "97701",
  country: "US",
};
export const RIVER_ROAD_ADDRESS_NORMALIZED = {
  recipient: "Maya Lindqvist",
  line1: "77 River Road",
  line2: null,
  city: "Bend",
  region: "OR",
  postal_code: "97701",
  country: "US",
};

export function prepareAddress(
  client: McpTestClient,
  orderId: string,
  address: Record<string, unknown>,
): Promise<ProposalView> {
  return callOk<ProposalView>(client, "prepare_address_change", { order_id: orderId, address });
}

/** Applies a proposal with `tool`, or, without one, with the apply tool of the proposal's kind. */
export async function confirm(client: McpTestClient, proposalId: string, tool?: string): Promise<ConfirmResult> {
  const name = tool ?? CHANGE_KINDS[(await getProposal(client, proposalId)).kind].applyTool.name;
  return callOk<ConfirmResult>(client, name, { proposal_id: proposalId });
}

export function getProposal(client: McpTestClient, proposalId: string): Promise<ProposalView> {
  return callOk<ProposalView>(client, "get_proposal", { proposal_id: proposalId });
}

export function details(client: McpTestClient, orderId: string): Promise<OrderDetails> {
  return callOk<OrderDetails>(client, "get_order_details", { order_id: orderId });
}

export function auditLog(client: McpTestClient, orderId: string): Promise<AuditLog> {
  return callOk<AuditLog>(client, "get_order_audit_log", { order_id: orderId });
}

// --------------------------------------------------------- scripted approvals

export function approvalApi(
  path: string,
  init: { token?: string; method?: string; body?: unknown; rawBody?: string; contentType?: string } = {},
): Promise<Response> {
  const headers: Record<string, string> = {};
  if (init.token !== undefined) headers.authorization = `Bearer ${init.token}`;
  let body: string | undefined;
  if (init.rawBody !== undefined || init.body !== undefined) {
    body = init.rawBody ?? JSON.stringify(init.body);
    headers["content-type"] = init.contentType ?? "application/json";
  }
  return workerFetch(`${BASE_URL}/api/approvals${path}`, {
    method: init.method ?? (body === undefined ? "GET" : "POST"),
    headers,
    ...(body === undefined ? {} : { body }),
  });
}

export function decide(
  proposalId: string,
  decision: string,
  reason: string,
  token = ACME_APPROVER_TOKEN,
): Promise<Response> {
  return approvalApi(`/${encodeURIComponent(proposalId)}`, { token, body: { decision, reason } });
}

/** Approves through the scripted API and asserts it worked. */
export async function approve(
  proposalId: string,
  reason = "checked the evidence, go ahead",
  token = ACME_APPROVER_TOKEN,
): Promise<ProposalView> {
  const response = await decide(proposalId, "approve", reason, token);
  const body = (await response.json()) as { proposal: ProposalView };
  expect(response.status, JSON.stringify(body)).toBe(200);
  expect(body.proposal.status).toBe("approved");
  return body.proposal;
}

export async function reject(
  proposalId: string,
  reason = "not this one",
  token = ACME_APPROVER_TOKEN,
): Promise<ProposalView> {
  const response = await decide(proposalId, "reject", reason, token);
  const body = (await response.json()) as { proposal: ProposalView };
  expect(response.status, JSON.stringify(body)).toBe(200);
  expect(body.proposal.status).toBe("rejected");
  return body.proposal;
}

// ------------------------------------------------- the AccountAgent's storage

/** The stored proposal JSON, straight from the AccountAgent's SQLite. */
export async function storedProposal(
  account: string,
  proposalId: string,
): Promise<Record<string, unknown> | undefined> {
  return runInDurableObject(env.ACCOUNT_AGENT.getByName(account), (_instance, state) => {
    const row = state.storage.sql
      .exec<{ body: string }>("SELECT body FROM proposals WHERE proposal_id = ?", proposalId)
      .toArray()[0];
    return row ? (JSON.parse(row.body) as Record<string, unknown>) : undefined;
  });
}

/** Rewrites a stored proposal's expires_at (in its JSON body) to `minutesAgo` in the past. */
export async function expireProposal(account: string, proposalId: string, minutesAgo = 1): Promise<string> {
  const expiresAt = new Date(Date.now() - minutesAgo * 60_000).toISOString();
  const updated = await runInDurableObject(env.ACCOUNT_AGENT.getByName(account), (_instance, state) => {
    const row = state.storage.sql
      .exec<{ body: string }>("SELECT body FROM proposals WHERE proposal_id = ?", proposalId)
      .toArray()[0];
    if (!row) return 0;
    const body = JSON.parse(row.body) as Record<string, unknown>;
    body.expires_at = expiresAt;
    return state.storage.sql.exec(
      "UPDATE proposals SET body = ? WHERE proposal_id = ?",
      JSON.stringify(body),
      proposalId,
    ).rowsWritten;
  });
  expect(updated).toBe(1);
  return expiresAt;
}

/** A proposal id shaped like a real one that no account has. */
export function unknownProposalId(): string {
  return `prop_${crypto.randomUUID().replace(/-/g, "").slice(0, 20)}`;
}
