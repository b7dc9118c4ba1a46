import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { env } from "cloudflare:workers";
import { expectInvariantsHold } from "../helpers/orders";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ConfirmResult, ProposalView } from "../../src/proposals/schemas";
import type { ApplyCommand, ApplyResult } from "../../src/orders/port";
import { applyProposalChange } from "../../src/store/operations";
import type { ExceptionSummary, OrderStatus } from "../../src/orders/views";
import { ACME_TOKEN, connectClient } from "../helpers/mcp-client";
import {
  ACME_APPROVER,
  ACME_OPERATOR,
  approve,
  auditLog,
  callError,
  callOk,
  callTool,
  confirm,
  countApplied,
  countAuditEvents,
  countProposalEvents,
  decide,
  details,
  expireProposal,
  getProposal,
  prepareAddress,
  propose,
  reject,
  type ApiError,
} from "../helpers/ops";
import { insertFreshOrder, readRow, type ExceptionKind } from "../helpers/fresh-orders";
import { structuredOf, type ToolCallResult } from "../helpers/tool-results";

// confirm_resolution / apply_approved_change: nothing happens before a human
// approves; after approval the change lands exactly once, however many times
// and from however many clients it is confirmed; stale, expired and rejected
// proposals never write.

const NEW_ADDRESS = { recipient: "Maya Lindqvist", line1: "77 RIVER ROAD", line2: "", city: "bend", region: "or", postal_code: "97701", country: "US" };
const NEW_ADDRESS_NORMALIZED = { recipient: "Maya Lindqvist", line1: "77 River Road", line2: null, city: "Bend", region: "OR", postal_code: "97701", country: "US" };

let acme: Client;
let acme2: Client;
let acme3: Client;

beforeAll(async () => {
  [acme, acme2, acme3] = await Promise.all([connectClient(ACME_TOKEN, "confirm-1"), connectClient(ACME_TOKEN, "confirm-2"), connectClient(ACME_TOKEN, "confirm-3")]);
});
afterAll(async () => {
  await expectInvariantsHold();
  await Promise.all([acme.close(), acme2.close(), acme3.close()]);
});

async function proposalFor(kind: ExceptionKind): Promise<{ orderId: string; proposal: ProposalView }> {
  const orderId = await insertFreshOrder({ exception: kind });
  return { orderId, proposal: await propose(acme, orderId) };
}

/** The whole wire answer of a tool call, for byte-for-byte comparisons. */
const wire = (result: ToolCallResult): string => JSON.stringify({ content: result.content, structuredContent: result.structuredContent, isError: result.isError });

describe("before approval", () => {
  it.each(["confirm_resolution", "apply_approved_change"])("%s answers approval_required and writes nothing", async (tool) => {
    const { orderId, proposal } = await proposalFor("duplicate_order");
    const rowBefore = await readRow("acme", orderId);
    const eventsBefore = await countAuditEvents("acme", orderId);

    const result = await confirm(acme, proposal.proposal_id, tool);
    expect(result).toEqual({
      status: "approval_required",
      proposal_id: proposal.proposal_id,
      order_id: orderId,
      action: "cancel_duplicate_order",
      message: `a human approver must approve this proposal at ${proposal.approval_url} before it can be applied; nothing was changed. Ask the user to approve it, then confirm again before ${proposal.expires_at}.`,
      approval_url: proposal.approval_url,
      expires_at: proposal.expires_at,
      outcome: null,
    });

    expect(await readRow("acme", orderId)).toEqual(rowBefore);
    expect(await countAuditEvents("acme", orderId)).toBe(eventsBefore);
    expect(await countApplied(proposal.proposal_id)).toBe(0);
    expect((await getProposal(acme, proposal.proposal_id)).status).toBe("pending_approval");
  });

  it("asking many times changes nothing either", async () => {
    const { orderId, proposal } = await proposalFor("payment_declined_inventory_held");
    const rowBefore = await readRow("acme", orderId);
    const results = await Promise.all(Array.from({ length: 5 }, () => confirm(acme, proposal.proposal_id)));
    expect(new Set(results.map((r) => r.status))).toEqual(new Set(["approval_required"]));
    expect(await readRow("acme", orderId)).toEqual(rowBefore);
    expect(await countAuditEvents("acme", orderId)).toBe(2); // the fixture's origin event and proposal_created
  });
});

describe("approved, then confirmed", () => {
  let orderId: string;
  let proposal: ProposalView;
  let first: ToolCallResult;
  let applied: ConfirmResult;

  beforeAll(async () => {
    ({ orderId, proposal } = await proposalFor("duplicate_order"));
    await approve(proposal.proposal_id, "double submit confirmed with the customer");
    first = await callTool(acme, "confirm_resolution", { proposal_id: proposal.proposal_id });
    applied = structuredOf<ConfirmResult>(first);
  });

  it("answers applied with the outcome: who confirmed, who approved, versions and the changes the proposal promised", () => {
    expect(first.isError ?? false).toBe(false);
    expect(applied).toEqual({
      status: "applied",
      proposal_id: proposal.proposal_id,
      order_id: orderId,
      action: "cancel_duplicate_order",
      message: `cancel_duplicate_order was applied to ${orderId}`,
      approval_url: proposal.approval_url,
      expires_at: proposal.expires_at,
      outcome: {
        proposal_id: proposal.proposal_id,
        order_id: orderId,
        action: "cancel_duplicate_order",
        applied_at: applied.outcome?.applied_at,
        applied_by: ACME_OPERATOR,
        approved_by: ACME_APPROVER,
        order_version_before: 1,
        order_version_after: 2,
        changes: proposal.expected_changes,
      },
    });
    expect(Math.abs(Date.parse(applied.outcome?.applied_at ?? "") - Date.now())).toBeLessThan(60_000);
  });

  it("the order moved to version 2 and the effects show in get_order_status and get_order_details", async () => {
    expect(await callOk<OrderStatus>(acme, "get_order_status", { order_id: orderId })).toEqual({ order_id: orderId, status: "cancelled", version: 2 });
    const after = await details(acme, orderId);
    expect(after.payment?.state).toBe("refunded");
    expect(after.payment?.attempts.at(-1)).toMatchObject({ attempt_id: `${orderId}-refund`, outcome: "refunded", amount_cents: 6600 });
    expect(after.inventory?.allocations.map((a) => a.state)).toEqual(["released", "released"]);
    expect(after.fulfillment?.state).toBe("cancelled");
    expect(after.exception).toMatchObject({ state: "resolved", sla_breached: false });
    expect(after.timeline.at(-1)).toMatchObject({ event: "duplicate_cancelled", at: applied.outcome?.applied_at });
    const row = await readRow("acme", orderId);
    expect(row).toMatchObject({ version: 2, status: "cancelled", exception_state: "resolved", updated_at: applied.outcome?.applied_at });
  });

  it("the order leaves the exception queue", async () => {
    const list = await callOk<{ exceptions: ExceptionSummary[] }>(acme, "list_order_exceptions");
    expect(list.exceptions.map((e) => e.order_id)).not.toContain(orderId);
  });

  it("exactly one resolution_applied audit event, with the state before and after", async () => {
    expect(await countProposalEvents(proposal.proposal_id, "resolution_applied")).toBe(1);
    expect(await countAuditEvents("acme", orderId, "resolution_applied")).toBe(1);
    expect(await countApplied(proposal.proposal_id)).toBe(1);
    const log = await auditLog(acme, orderId);
    expect(log.events.map((e) => e.event_type)).toEqual(["order_seeded", "proposal_created", "proposal_approved", "resolution_applied"]);
    const event = log.events[3];
    expect(event).toMatchObject({
      event_id: `${proposal.proposal_id}:applied`,
      at: applied.outcome?.applied_at,
      actor_kind: "operator",
      actor: ACME_OPERATOR,
      proposal_id: proposal.proposal_id,
      reason: `cancel_duplicate_order approved by ${ACME_APPROVER} (double submit confirmed with the customer); confirmed by ${ACME_OPERATOR}`,
    });
    expect(event?.state_before).toMatchObject({ status: "pending", version: 1, payment: "captured", exception: { type: "duplicate_order", state: "active" } });
    expect(event?.state_after).toMatchObject({ status: "cancelled", version: 2, payment: "refunded", exception: { type: "duplicate_order", state: "resolved" } });
  });

  it("confirming again returns byte-identical text and structuredContent and writes nothing", async () => {
    const rowAfterFirst = await readRow("acme", orderId);
    const again = await callTool(acme, "confirm_resolution", { proposal_id: proposal.proposal_id });
    const fromAnotherClient = await callTool(acme2, "confirm_resolution", { proposal_id: proposal.proposal_id });
    expect(wire(again)).toBe(wire(first));
    expect(wire(fromAnotherClient)).toBe(wire(first));
    expect(again.content).toEqual(first.content);
    expect(again.structuredContent).toEqual(first.structuredContent);
    expect(await readRow("acme", orderId)).toEqual(rowAfterFirst);
    expect(await countAuditEvents("acme", orderId, "resolution_applied")).toBe(1);
    expect(await countApplied(proposal.proposal_id)).toBe(1);
  });

  it("get_proposal shows applied with the same outcome", async () => {
    const view = await getProposal(acme, proposal.proposal_id);
    expect(view.status).toBe("applied");
    expect(view.outcome).toEqual(applied.outcome);
  });

  it("the applied order has nothing left to propose", async () => {
    expect(await callError(acme, "propose_resolution", { order_id: orderId })).toBe(
      `order ${orderId} has no active exception (its exception is already resolved), so there is nothing to resolve`,
    );
  });
});

describe("20 concurrent confirmations of one approved proposal", () => {
  it("write the order once, record one event and one application, and all answer the same bytes", async () => {
    const { orderId, proposal } = await proposalFor("payment_declined_inventory_held");
    await approve(proposal.proposal_id);
    const clients = [acme, acme2, acme3];
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => callTool(clients[i % clients.length] ?? acme, "confirm_resolution", { proposal_id: proposal.proposal_id })),
    );

    const first = results[0];
    if (!first) throw new Error("no results");
    const firstResult = structuredOf<ConfirmResult>(first);
    expect(firstResult.status).toBe("applied");
    for (const result of results) expect(wire(result)).toBe(wire(first));

    const row = await readRow("acme", orderId);
    expect(row.version).toBe(2);
    expect(row.status).toBe("cancelled");
    expect(await countProposalEvents(proposal.proposal_id, "resolution_applied")).toBe(1);
    expect(await countAuditEvents("acme", orderId, "resolution_applied")).toBe(1);
    expect(await countApplied(proposal.proposal_id)).toBe(1);
    const { results: applications } = await env.DB.prepare("SELECT outcome FROM applied_proposals WHERE proposal_id = ?").bind(proposal.proposal_id).all<{ outcome: string }>();
    expect(JSON.parse(applications[0]?.outcome ?? "null")).toEqual(firstResult.outcome);
  });

  it("the store's apply is exactly-once on its own too: 10 concurrent applies of one command, one write", async () => {
    const orderId = await insertFreshOrder({ exception: "fulfillment_incomplete_carrier_timeout" });
    const command: ApplyCommand = {
      proposal_id: `prop_store_${crypto.randomUUID()}`,
      order_id: orderId,
      pinned_version: 1,
      change: { kind: "resolution", action: "retry_fulfillment" },
      confirmed_by: "store test",
      approved_by: "store approver",
      approval_reason: "direct",
    };
    const results: ApplyResult[] = await Promise.all(Array.from({ length: 10 }, () => applyProposalChange(env.DB, "acme", command, new Date())));
    expect(results.filter((r) => r.kind === "applied")).toHaveLength(1);
    expect(results.filter((r) => r.kind === "already_applied")).toHaveLength(9);
    const outcomes = results.map((r) => (r.kind === "applied" || r.kind === "already_applied" ? JSON.stringify(r.outcome) : r.kind));
    expect(new Set(outcomes).size).toBe(1);
    expect((await readRow("acme", orderId)).version).toBe(2);
    expect(await countApplied(command.proposal_id)).toBe(1);
    expect(await countProposalEvents(command.proposal_id, "resolution_applied")).toBe(1);
  });

  it("the store refuses a command pinned to an old version: stale, nothing written", async () => {
    const orderId = await insertFreshOrder({ exception: "fraud_review" });
    const before = await readRow("acme", orderId);
    const result = await applyProposalChange(
      env.DB,
      "acme",
      {
        proposal_id: `prop_store_${crypto.randomUUID()}`,
        order_id: orderId,
        pinned_version: 7,
        change: { kind: "resolution", action: "escalate_to_human" },
        confirmed_by: "x",
        approved_by: "y",
        approval_reason: "z",
      },
      new Date(),
    );
    expect(result).toEqual({ kind: "stale", current_version: 1 });
    expect(await readRow("acme", orderId)).toEqual(before);
  });
});

describe("stale proposals", () => {
  it("two approved proposals on one order: the first applies, the second answers stale and writes nothing", async () => {
    const orderId = await insertFreshOrder({ exception: "fraud_review" });
    const resolution = await propose(acme, orderId);
    const address = await prepareAddress(acme, orderId, NEW_ADDRESS);
    await approve(resolution.proposal_id);
    await approve(address.proposal_id);
    // A second address change cannot join them: it would conflict with the approved one.
    const conflicting = await callTool(acme, "prepare_address_change", { order_id: orderId, address: { ...NEW_ADDRESS, line2: "Unit 9" } });
    expect(conflicting.isError).toBe(true);
    expect(JSON.stringify(conflicting.content)).toContain(`already has an approved address change, ${address.proposal_id}`);

    const applied = await confirm(acme, address.proposal_id, "apply_approved_change");
    expect(applied.status).toBe("applied");
    const rowAfterFirst = await readRow("acme", orderId);
    expect(rowAfterFirst.version).toBe(2);

    const staleResult = await callTool(acme, "confirm_resolution", { proposal_id: resolution.proposal_id });
    expect(staleResult.structuredContent).toEqual({
      status: "stale",
      proposal_id: resolution.proposal_id,
      order_id: orderId,
      action: "escalate_to_human",
      message: `proposal ${resolution.proposal_id} is stale: order ${orderId} moved from version 1 to 2 after this proposal was made; nothing was changed. Ask for a new proposal.`,
      approval_url: resolution.approval_url,
      expires_at: resolution.expires_at,
      outcome: null,
    });
    expect(await readRow("acme", orderId)).toEqual(rowAfterFirst);
    expect(await countApplied(resolution.proposal_id)).toBe(0);
    expect(await countProposalEvents(resolution.proposal_id, "resolution_applied")).toBe(0);
    expect((await getProposal(acme, resolution.proposal_id)).status).toBe("stale");

    // Asking again stays stale, byte for byte.
    expect(wire(await callTool(acme2, "confirm_resolution", { proposal_id: resolution.proposal_id }))).toBe(wire(staleResult));

    // A fresh proposal pins the new version.
    const renewed = await propose(acme, orderId);
    expect(renewed.proposal_id).not.toBe(resolution.proposal_id);
    expect(renewed.pinned_version).toBe(2);
  });

  it("a pending proposal of the old version can no longer be approved once another change is applied", async () => {
    const orderId = await insertFreshOrder({ exception: "fraud_review" });
    const pending = await propose(acme, orderId);
    const address = await prepareAddress(acme, orderId, NEW_ADDRESS);
    await approve(address.proposal_id);
    expect((await confirm(acme, address.proposal_id, "apply_approved_change")).status).toBe("applied");
    const rowAfter = await readRow("acme", orderId);

    const late = await decide(pending.proposal_id, "approve", "too late now");
    expect(late.status).toBe(409);
    expect(((await late.json()) as ApiError).message).toBe(
      `proposal ${pending.proposal_id} is stale: order ${orderId} moved from version 1 to 2 after this proposal was made; nothing was changed. Ask for a new proposal.`,
    );
    expect((await getProposal(acme, pending.proposal_id)).status).toBe("stale");
    expect(await readRow("acme", orderId)).toEqual(rowAfter);
  });
});

describe("expired proposals", () => {
  it("a pending proposal past its expiry cannot be approved (409) or confirmed, and nothing is written", async () => {
    const { orderId, proposal } = await proposalFor("payment_declined_inventory_held");
    const expiredAt = await expireProposal("acme", proposal.proposal_id);
    const rowBefore = await readRow("acme", orderId);
    const eventsBefore = await countAuditEvents("acme", orderId);

    const approval = await decide(proposal.proposal_id, "approve", "approving after the deadline");
    expect(approval.status).toBe(409);
    const body = (await approval.json()) as ApiError;
    expect(body.code).toBe("conflict");
    expect(body.message).toBe(`proposal ${proposal.proposal_id} expired at ${expiredAt} without being approved; nothing was changed. Ask for a new proposal.`);

    const message = await callError(acme, "confirm_resolution", { proposal_id: proposal.proposal_id });
    expect(message).toContain("expired");
    expect(message).toBe(`proposal ${proposal.proposal_id} expired at ${expiredAt} without being applied; nothing was changed. Ask for a new proposal.`);

    expect(await readRow("acme", orderId)).toEqual(rowBefore);
    expect(await countAuditEvents("acme", orderId)).toBe(eventsBefore);
    expect(await countApplied(proposal.proposal_id)).toBe(0);
    expect((await getProposal(acme, proposal.proposal_id)).status).toBe("expired");
  });

  it("an approved proposal that expired before confirmation is refused and nothing is written", async () => {
    const { orderId, proposal } = await proposalFor("fulfillment_hold_missing_sku");
    await approve(proposal.proposal_id);
    await expireProposal("acme", proposal.proposal_id, 5);
    const rowBefore = await readRow("acme", orderId);
    const message = await callError(acme, "confirm_resolution", { proposal_id: proposal.proposal_id });
    expect(message).toContain("expired");
    expect(await readRow("acme", orderId)).toEqual(rowBefore);
    expect(await countApplied(proposal.proposal_id)).toBe(0);
    expect(await countAuditEvents("acme", orderId, "resolution_applied")).toBe(0);
  });

  it("an expired proposal no longer counts as open: asking again opens a new one", async () => {
    const { orderId, proposal } = await proposalFor("fraud_review");
    await expireProposal("acme", proposal.proposal_id);
    const renewed = await propose(acme, orderId);
    expect(renewed.proposal_id).not.toBe(proposal.proposal_id);
    expect(renewed.status).toBe("pending_approval");
  });
});

describe("rejected proposals", () => {
  it("confirm is refused, naming who rejected it and why; nothing is written", async () => {
    const { orderId, proposal } = await proposalFor("duplicate_order");
    await reject(proposal.proposal_id, "customer wants both orders");
    const rowBefore = await readRow("acme", orderId);
    const eventsBefore = await countAuditEvents("acme", orderId);
    for (const tool of ["confirm_resolution", "apply_approved_change"]) {
      const message = await callError(acme, tool, { proposal_id: proposal.proposal_id });
      expect(message).toContain("rejected");
      expect(message).toBe(
        `proposal ${proposal.proposal_id} was rejected by ${ACME_APPROVER} (customer wants both orders); it will not be applied. Ask for a new proposal if the situation changed.`,
      );
    }
    expect(await readRow("acme", orderId)).toEqual(rowBefore);
    expect(await countAuditEvents("acme", orderId)).toBe(eventsBefore);
    expect(await countApplied(proposal.proposal_id)).toBe(0);
  });
});

describe("apply_approved_change", () => {
  it("applies an approved address change: new address in get_order_details, one address_change_applied event", async () => {
    const orderId = await insertFreshOrder({ exception: null });
    const proposal = await prepareAddress(acme, orderId, NEW_ADDRESS);
    const before = await readRow("acme", orderId);
    await approve(proposal.proposal_id, "customer called to correct it");

    const result = await confirm(acme, proposal.proposal_id, "apply_approved_change");
    expect(result.status).toBe("applied");
    expect(result.action).toBe("change_shipping_address");
    expect(result.outcome?.changes).toEqual(proposal.expected_changes);
    expect(result.outcome).toMatchObject({ order_version_before: 1, order_version_after: 2, approved_by: ACME_APPROVER, applied_by: ACME_OPERATOR });

    const after = await details(acme, orderId);
    expect(after.shipping_address).toEqual(NEW_ADDRESS_NORMALIZED);
    expect(after.version).toBe(2);
    expect(after.status).toBe(before.status);
    expect(after.timeline.at(-1)).toMatchObject({ event: "address_changed", detail: "shipping address changed to Maya Lindqvist, 77 River Road, Bend, OR 97701, US" });

    expect(await countAuditEvents("acme", orderId, "address_change_applied")).toBe(1);
    expect(await countAuditEvents("acme", orderId, "resolution_applied")).toBe(0);
    const event = (await auditLog(acme, orderId)).events.find((e) => e.event_type === "address_change_applied");
    expect(event?.state_before?.shipping_address).toEqual(JSON.parse(String(before.shipping_address)));
    expect(event?.state_after?.shipping_address).toEqual(NEW_ADDRESS_NORMALIZED);

    // And again: the same stored outcome.
    expect(await confirm(acme2, proposal.proposal_id, "apply_approved_change")).toEqual(result);
    expect((await readRow("acme", orderId)).version).toBe(2);
  });
});
