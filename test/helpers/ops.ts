import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import type { ConfirmResult, ProposalView } from "../../src/proposals/schemas";
import type { Address, Evidence, ExceptionType } from "../../src/orders/evidence";
import type { AuditLog, OrderDetails } from "../../src/orders/views";
import { workerFetch, type McpTestClient } from "./mcp-client";
import { warmUp } from "./orders";
import { structuredOf, toolErrorOf, type ToolCallResult } from "./tool-results";

/**
 * Helpers for the order-operations and approval tests: fresh orders written
 * straight into D1 (so tests that apply never spend the shared seed orders),
 * raw reads of the rows and audit trail, the scripted approval API, and the
 * AccountAgent's proposal table.
 */
export const BASE_URL = "http://localhost";
export const ACME_APPROVER_TOKEN = "acme-approver-dev-token";
export const GLOBEX_APPROVER_TOKEN = "globex-approver-dev-token";
export const ACME_OPERATOR = "Ada Ops (acme, local dev)";
export const ACME_APPROVER = "Avery Approver (acme, local dev)";
/** PROPOSAL_TTL_MINUTES is unset in .dev.vars and 15 in wrangler.toml. */
export const PROPOSAL_TTL_MS = 15 * 60_000;

export type ExceptionKind = ExceptionType;

export interface FreshOrderOptions {
  readonly account?: string;
  /** Defaults to a fresh TST-... id. */
  readonly orderId?: string;
  /** null: an order without any exception. */
  readonly exception?: ExceptionKind | null;
  readonly exceptionState?: "active" | "resolved" | "escalated";
  readonly status?: string;
  readonly paymentState?: Evidence["payment"]["state"];
  readonly priority?: string;
  readonly openedMinutesAgo?: number;
  /** An exact opened_at (ISO); wins over openedMinutesAgo. */
  readonly openedAt?: string;
  readonly slaMinutes?: number;
  readonly address?: Address;
  readonly customerId?: string;
  /** false: write the order alone, without its origin event (tests of the invariant and of exact event lists). */
  readonly originEvent?: boolean;
}

export const DEFAULT_ADDRESS: Address = {
  recipient: "Test Recipient",
  line1: "1 Test Street",
  line2: null,
  city: "Springfield",
  region: "IL",
  postal_code: "62701",
  country: "US",
};

interface Shape {
  status: string;
  payment: Evidence["payment"]["state"];
  allocations: Evidence["inventory"]["allocations"];
  fulfillment: Evidence["fulfillment"];
  duplicate: Evidence["duplicate"];
  team: string;
}

function shapeFor(kind: FreshOrderOptions["exception"]): Shape {
  const allocated = [
    { sku: "SKU-2240", quantity: 1, warehouse: "RNO-1", state: "allocated" as const },
    { sku: "SKU-1180", quantity: 2, warehouse: "RNO-1", state: "allocated" as const },
  ];
  switch (kind) {
    case "duplicate_order":
      return {
        status: "pending",
        payment: "captured",
        allocations: allocated,
        fulfillment: { state: "pending", carrier: null, tracking: null, last_event: "waiting to be picked" },
        duplicate: { of_order_id: "ORD-1016", signals: ["same customer", "same lines", "placed 2 minutes apart"] },
        team: "Order Integrity",
      };
    case "payment_declined_inventory_held":
      return {
        status: "payment_failed",
        payment: "declined",
        allocations: allocated.map((a) => ({ ...a, state: "held" as const })),
        fulfillment: { state: "blocked", carrier: null, tracking: null, last_event: "waiting for payment" },
        duplicate: null,
        team: "Payments Ops",
      };
    case "fulfillment_hold_missing_sku":
      return {
        status: "on_hold",
        payment: "authorized",
        allocations: [{ sku: "SKU-7720", quantity: 1, warehouse: "RNO-1", state: "missing" }, { sku: "SKU-1180", quantity: 2, warehouse: "RNO-1", state: "allocated" }],
        fulfillment: { state: "on_hold", carrier: null, tracking: null, last_event: "hold: SKU-7720 has no stock" },
        duplicate: null,
        team: "Fulfillment Ops",
      };
    case "fulfillment_incomplete_carrier_timeout":
      return {
        status: "processing",
        payment: "captured",
        allocations: allocated,
        fulfillment: { state: "label_timeout", carrier: "UPS", tracking: null, last_event: "label request timed out" },
        duplicate: null,
        team: "Logistics",
      };
    case "fraud_review":
      return {
        status: "on_hold",
        payment: "authorized",
        allocations: allocated,
        fulfillment: { state: "on_hold", carrier: null, tracking: null, last_event: "held for fraud review" },
        duplicate: null,
        team: "Trust & Safety",
      };
    default:
      return {
        status: "processing",
        payment: "captured",
        allocations: allocated,
        fulfillment: { state: "picking", carrier: null, tracking: null, last_event: "picking started" },
        duplicate: null,
        team: "Specialists",
      };
  }
}

/** A unique id outside the public ORD-<number> sequence, so simulate_new_failure's numbering is untouched. */
export function freshOrderId(): string {
  return `TST-${crypto.randomUUID().replace(/-/g, "").slice(0, 12).toUpperCase()}`;
}

/**
 * Inserts one order with the chosen exception straight into D1, in the row
 * format of src/order-api/seed-loader.ts, and returns its id.
 */
export async function insertFreshOrder(options: FreshOrderOptions = {}): Promise<string> {
  await warmUp();
  const orderId = options.orderId ?? freshOrderId();
  const account = options.account ?? "acme";
  const kind = options.exception === undefined ? "fraud_review" : options.exception;
  const shape = shapeFor(kind);
  const now = Date.now();
  const openedMs = options.openedAt === undefined ? now - (options.openedMinutesAgo ?? 30) * 60_000 : Date.parse(options.openedAt);
  const opened = new Date(openedMs).toISOString();
  const created = new Date(openedMs - 5 * 60_000).toISOString();
  const paymentState = options.paymentState ?? shape.payment;
  const evidence: Evidence = {
    payment: {
      state: paymentState,
      attempts: [
        {
          attempt_id: `PAY-${orderId}-1`,
          at: created,
          amount_cents: 6600,
          method: "visa ending 4242",
          outcome: paymentState,
          decline_code: paymentState === "declined" ? "do_not_honor" : null,
        },
      ],
    },
    inventory: { allocations: shape.allocations },
    fulfillment: shape.fulfillment,
    duplicate: shape.duplicate,
    timeline: [{ at: created, event: "order_placed", detail: "placed via web (test fixture)" }],
  };
  const lines = [
    { sku: "SKU-2240", quantity: 1, unit_price_cents: 4200 },
    { sku: "SKU-1180", quantity: 2, unit_price_cents: 1200 },
  ];
  await env.DB.prepare(
    `INSERT INTO orders (order_id, account, source, customer_id, channel, currency, total_cents, status, version, lines,
       shipping_address, evidence, exception_type, exception_state, exception_priority, exception_team,
       exception_opened_at, exception_sla_minutes, exception_summary, created_at, updated_at)
     VALUES (?, ?, 'operations', ?, 'web', 'USD', 6600, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  )
    .bind(
      orderId,
      account,
      options.customerId ?? "CUST-0001",
      options.status ?? shape.status,
      JSON.stringify(lines),
      JSON.stringify(options.address ?? DEFAULT_ADDRESS),
      JSON.stringify(evidence),
      kind,
      kind === null ? null : (options.exceptionState ?? "active"),
      kind === null ? null : (options.priority ?? "P2"),
      kind === null ? null : shape.team,
      kind === null ? null : opened,
      kind === null ? null : (options.slaMinutes ?? 120),
      kind === null ? null : `test fixture: ${kind}`,
      created,
      created,
    )
    .run();
  // Like every order, a fixture has the event that says where it came from (see src/store/invariants.ts).
  if (options.originEvent === false) return orderId;
  await env.DB.prepare(
    `INSERT INTO audit_events (event_id, account, order_id, event_type, actor_kind, actor, reason, created_at)
     VALUES (?, ?, ?, 'order_seeded', 'system', 'test fixture', 'inserted by a test', ?)`,
  )
    .bind(`${orderId}:seeded`, account, orderId, created)
    .run();
  return orderId;
}

export type RawRow = Record<string, unknown>;

/** The whole D1 row, every column, for byte-for-byte before/after comparisons. */
export async function readRow(account: string, orderId: string): Promise<RawRow> {
  await warmUp();
  const row = await env.DB.prepare("SELECT * FROM orders WHERE account = ? AND order_id = ?").bind(account, orderId).first<RawRow>();
  if (!row) throw new Error(`no row for ${account}/${orderId}`);
  return row;
}

async function count(sql: string, ...params: unknown[]): Promise<number> {
  const row = await env.DB.prepare(sql)
    .bind(...params)
    .first<{ n: number }>();
  return row?.n ?? 0;
}

export function countAuditEvents(account: string, orderId: string, eventType?: string): Promise<number> {
  return eventType === undefined
    ? count("SELECT count(*) AS n FROM audit_events WHERE account = ? AND order_id = ?", account, orderId)
    : count("SELECT count(*) AS n FROM audit_events WHERE account = ? AND order_id = ? AND event_type = ?", account, orderId, eventType);
}

export function countProposalEvents(proposalId: string, eventType: string): Promise<number> {
  return count("SELECT count(*) AS n FROM audit_events WHERE proposal_id = ? AND event_type = ?", proposalId, eventType);
}

export function countApplied(proposalId: string): Promise<number> {
  return count("SELECT count(*) AS n FROM applied_proposals WHERE proposal_id = ?", proposalId);
}

// ------------------------------------------------------------------ MCP calls

export async function callTool(client: McpTestClient, name: string, args: Record<string, unknown> = {}): Promise<ToolCallResult> {
  return (await client.callTool({ name, arguments: args })) as ToolCallResult;
}

export async function callOk<T>(client: McpTestClient, name: string, args: Record<string, unknown> = {}): Promise<T> {
  return structuredOf<T>(await callTool(client, name, args));
}

export async function callError(client: McpTestClient, name: string, args: Record<string, unknown> = {}): Promise<string> {
  return toolErrorOf(await callTool(client, name, args));
}

export function propose(client: McpTestClient, orderId: string): Promise<ProposalView> {
  return callOk<ProposalView>(client, "propose_resolution", { order_id: orderId });
}

export function prepareAddress(client: McpTestClient, orderId: string, address: Record<string, unknown>): Promise<ProposalView> {
  return callOk<ProposalView>(client, "prepare_address_change", { order_id: orderId, address });
}

export function confirm(client: McpTestClient, proposalId: string, tool = "confirm_resolution"): Promise<ConfirmResult> {
  return callOk<ConfirmResult>(client, tool, { proposal_id: proposalId });
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

export interface ApiError {
  code: string;
  message: string;
  errors?: string[];
}

export function approvalApi(path: string, init: { token?: string; method?: string; body?: unknown; rawBody?: string; contentType?: string } = {}): Promise<Response> {
  const headers: Record<string, string> = {};
  if (init.token !== undefined) headers.authorization = `Bearer ${init.token}`;
  let body: string | undefined;
  if (init.rawBody !== undefined || init.body !== undefined) {
    body = init.rawBody ?? JSON.stringify(init.body);
    headers["content-type"] = init.contentType ?? "application/json";
  }
  return workerFetch(`${BASE_URL}/api/approvals${path}`, { method: init.method ?? (body === undefined ? "GET" : "POST"), headers, ...(body === undefined ? {} : { body }) });
}

export function decide(proposalId: string, decision: string, reason: string, token = ACME_APPROVER_TOKEN): Promise<Response> {
  return approvalApi(`/${encodeURIComponent(proposalId)}`, { token, body: { decision, reason } });
}

/** Approves through the scripted API and asserts it worked. */
export async function approve(proposalId: string, reason = "checked the evidence, go ahead", token = ACME_APPROVER_TOKEN): Promise<ProposalView> {
  const response = await decide(proposalId, "approve", reason, token);
  const body = (await response.json()) as { proposal: ProposalView };
  expect(response.status, JSON.stringify(body)).toBe(200);
  expect(body.proposal.status).toBe("approved");
  return body.proposal;
}

export async function reject(proposalId: string, reason = "not this one", token = ACME_APPROVER_TOKEN): Promise<ProposalView> {
  const response = await decide(proposalId, "reject", reason, token);
  const body = (await response.json()) as { proposal: ProposalView };
  expect(response.status, JSON.stringify(body)).toBe(200);
  expect(body.proposal.status).toBe("rejected");
  return body.proposal;
}

// ------------------------------------------------- the AccountAgent's storage

/** The stored proposal JSON, straight from the AccountAgent's SQLite. */
export async function storedProposal(account: string, proposalId: string): Promise<Record<string, unknown> | undefined> {
  return runInDurableObject(env.ACCOUNT_AGENT.getByName(account), (_instance, state) => {
    const row = state.storage.sql.exec<{ body: string }>("SELECT body FROM proposals WHERE proposal_id = ?", proposalId).toArray()[0];
    return row ? (JSON.parse(row.body) as Record<string, unknown>) : undefined;
  });
}

/** Rewrites a stored proposal's expires_at (in its JSON body) to `minutesAgo` in the past. */
export async function expireProposal(account: string, proposalId: string, minutesAgo = 1): Promise<string> {
  const expiresAt = new Date(Date.now() - minutesAgo * 60_000).toISOString();
  const updated = await runInDurableObject(env.ACCOUNT_AGENT.getByName(account), (_instance, state) => {
    const row = state.storage.sql.exec<{ body: string }>("SELECT body FROM proposals WHERE proposal_id = ?", proposalId).toArray()[0];
    if (!row) return 0;
    const body = JSON.parse(row.body) as Record<string, unknown>;
    body.expires_at = expiresAt;
    return state.storage.sql.exec("UPDATE proposals SET body = ? WHERE proposal_id = ?", JSON.stringify(body), proposalId).rowsWritten;
  });
  expect(updated).toBe(1);
  return expiresAt;
}

/** A proposal id shaped like a real one that no account has. */
export function unknownProposalId(): string {
  return `prop_${crypto.randomUUID().replace(/-/g, "").slice(0, 20)}`;
}
