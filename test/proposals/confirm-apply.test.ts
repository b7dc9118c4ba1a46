import { env } from "cloudflare:workers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ExceptionSummary, OrderStatus } from "../../src/orders/tool-outputs";
import type { ConfirmResult, ProposalView } from "../../src/proposals/proposal-schemas";
import { alreadyAppliedMessage, appliedMessage } from "../../src/proposals/sentences";
import { insertFreshOrder, readRow } from "../helpers/fresh-orders";
import { CLIENT_GENERATIONS, type McpTestClient } from "../helpers/mcp-client";
import {
  ACME_APPROVER,
  ACME_OPERATOR,
  approve,
  auditLog,
  callError,
  callOk,
  callTool,
  confirm,
  details,
  getProposal,
  prepareAddress,
  proposalFor,
  RIVER_ROAD_ADDRESS,
  RIVER_ROAD_ADDRESS_NORMALIZED,
} from "../helpers/ops";
import { expectInvariantsHold } from "../helpers/orders";
import { countApplied, countAuditEvents, countProposalEvents } from "../helpers/rows";
import { ACME_TOKEN } from "../helpers/tokens";
import { structuredOf, type ToolCallResult, wire } from "../helpers/tool-results";

// Over both protocol eras: the v1 client at 2025-11-25 and the v2 client at 2026-07-28.
describe.each(CLIENT_GENERATIONS)("$label", (generation) => {
  // confirm_resolution / apply_approved_change once a human has approved: the
  // change lands exactly once, however many times and from however many
  // clients it is confirmed. The refusals are in confirm-refusals.test.ts.

  let acme: McpTestClient;
  let acme2: McpTestClient;
  let acme3: McpTestClient;

  beforeAll(async () => {
    [acme, acme2, acme3] = await Promise.all([
      generation.connect(ACME_TOKEN, "confirm-1"),
      generation.connect(ACME_TOKEN, "confirm-2"),
      generation.connect(ACME_TOKEN, "confirm-3"),
    ]);
  });
  afterAll(async () => {
    await expectInvariantsHold();
    await Promise.all([acme.close(), acme2.close(), acme3.close()]);
  });

  describe("approved, then confirmed", () => {
    let orderId: string;
    let proposal: ProposalView;
    let first: ToolCallResult;
    let applied: ConfirmResult;

    beforeAll(async () => {
      ({ orderId, proposal } = await proposalFor(acme, "duplicate_order"));
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
        message: appliedMessage({ action: "cancel_duplicate_order", order_id: orderId }),
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
      expect(await callOk<OrderStatus>(acme, "get_order_status", { order_id: orderId })).toEqual({
        order_id: orderId,
        status: "cancelled",
        version: 2,
      });
      const after = await details(acme, orderId);
      expect(after.payment?.state).toBe("refunded");
      expect(after.payment?.attempts.at(-1)).toMatchObject({
        attempt_id: `${orderId}-refund`,
        outcome: "refunded",
        amount_cents: 6600,
      });
      expect(after.inventory?.allocations.map((a) => a.state)).toEqual(["released", "released"]);
      expect(after.fulfillment?.state).toBe("cancelled");
      expect(after.exception).toMatchObject({ state: "resolved", sla_breached: false });
      expect(after.timeline.at(-1)).toMatchObject({ event: "duplicate_cancelled", at: applied.outcome?.applied_at });
      const row = await readRow("acme", orderId);
      expect(row).toMatchObject({
        version: 2,
        status: "cancelled",
        exception_state: "resolved",
        updated_at: applied.outcome?.applied_at,
      });
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
      expect(log.events.map((e) => e.event_type)).toEqual([
        "order_seeded",
        "proposal_created",
        "proposal_approved",
        "resolution_applied",
      ]);
      const event = log.events[3];
      expect(event).toMatchObject({
        event_id: `${proposal.proposal_id}:applied`,
        at: applied.outcome?.applied_at,
        actor_kind: "operator",
        actor: ACME_OPERATOR,
        proposal_id: proposal.proposal_id,
        reason: `cancel_duplicate_order approved by ${ACME_APPROVER} (double submit confirmed with the customer); confirmed by ${ACME_OPERATOR}`,
      });
      expect(event?.state_before).toMatchObject({
        status: "pending",
        version: 1,
        payment: "captured",
        exception: { type: "duplicate_order", state: "active" },
      });
      expect(event?.state_after).toMatchObject({
        status: "cancelled",
        version: 2,
        payment: "refunded",
        exception: { type: "duplicate_order", state: "resolved" },
      });
    });

    it("confirming again returns the same outcome, says it was already applied and when, and writes nothing", async () => {
      const rowAfterFirst = await readRow("acme", orderId);
      const again = await callTool(acme, "confirm_resolution", { proposal_id: proposal.proposal_id });
      const fromAnotherClient = await callTool(acme2, "confirm_resolution", { proposal_id: proposal.proposal_id });
      const repeated = {
        ...applied,
        message: alreadyAppliedMessage({ action: applied.action, order_id: orderId, outcome: applied.outcome }),
      };
      expect(repeated.message).toBe(
        `cancel_duplicate_order was already applied to ${orderId} at ${applied.outcome?.applied_at}; this call changed nothing`,
      );
      expect(structuredOf<ConfirmResult>(again)).toEqual(repeated);
      expect(wire(fromAnotherClient)).toBe(wire(again));
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

  describe("40 concurrent confirmations of one approved proposal", () => {
    it("write the order once, record one event and one application, and all answer the same outcome", async () => {
      const { orderId, proposal } = await proposalFor(acme, "payment_declined_inventory_held");
      await approve(proposal.proposal_id);
      const clients = [acme, acme2, acme3];
      const results = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          callTool(clients[i % clients.length] ?? acme, "confirm_resolution", { proposal_id: proposal.proposal_id }),
        ),
      );

      const answers = results.map((result) => structuredOf<ConfirmResult>(result));
      const firstResult = answers.find((answer) => answer.message === appliedMessage(answer));
      if (!firstResult) throw new Error("no call says it applied the proposal");
      expect(firstResult.status).toBe("applied");
      // Exactly one call applied it; the other thirty-nine say it already was, with the same outcome.
      expect(answers.filter((answer) => answer.message === appliedMessage(answer))).toHaveLength(1);
      for (const answer of answers.filter((a) => a !== firstResult)) {
        expect(answer).toEqual({
          ...firstResult,
          message: alreadyAppliedMessage({ ...firstResult, outcome: firstResult.outcome }),
        });
      }

      const row = await readRow("acme", orderId);
      expect(row.version).toBe(2);
      expect(row.status).toBe("cancelled");
      expect(await countProposalEvents(proposal.proposal_id, "resolution_applied")).toBe(1);
      expect(await countAuditEvents("acme", orderId, "resolution_applied")).toBe(1);
      expect(await countApplied(proposal.proposal_id)).toBe(1);
      const { results: applications } = await env.DB.prepare(
        "SELECT outcome FROM applied_proposals WHERE proposal_id = ?",
      )
        .bind(proposal.proposal_id)
        .all<{ outcome: string }>();
      expect(JSON.parse(applications[0]?.outcome ?? "null")).toEqual(firstResult.outcome);
    });
  });

  describe("apply_approved_change", () => {
    it("applies an approved address change: new address in get_order_details, one address_change_applied event", async () => {
      const orderId = await insertFreshOrder({ exception: null });
      const proposal = await prepareAddress(acme, orderId, RIVER_ROAD_ADDRESS);
      const before = await readRow("acme", orderId);
      await approve(proposal.proposal_id, "customer called to correct it");

      const result = await confirm(acme, proposal.proposal_id, "apply_approved_change");
      expect(result.status).toBe("applied");
      expect(result.action).toBe("change_shipping_address");
      expect(result.outcome?.changes).toEqual(proposal.expected_changes);
      expect(result.outcome).toMatchObject({
        order_version_before: 1,
        order_version_after: 2,
        approved_by: ACME_APPROVER,
        applied_by: ACME_OPERATOR,
      });

      const after = await details(acme, orderId);
      expect(after.shipping_address).toEqual(RIVER_ROAD_ADDRESS_NORMALIZED);
      expect(after.version).toBe(2);
      expect(after.status).toBe(before.status);
      expect(after.timeline.at(-1)).toMatchObject({
        event: "address_changed",
        detail: "shipping address changed to Maya Lindqvist, 77 River Road, Bend, OR 97701, US",
      });

      expect(await countAuditEvents("acme", orderId, "address_change_applied")).toBe(1);
      expect(await countAuditEvents("acme", orderId, "resolution_applied")).toBe(0);
      const event = (await auditLog(acme, orderId)).events.find((e) => e.event_type === "address_change_applied");
      expect(event?.state_before?.shipping_address).toEqual(JSON.parse(String(before.shipping_address)));
      expect(event?.state_after?.shipping_address).toEqual(RIVER_ROAD_ADDRESS_NORMALIZED);

      // And again: the same stored outcome, said to be from before.
      expect(result.message).toBe(appliedMessage(result));
      expect(await confirm(acme2, proposal.proposal_id, "apply_approved_change")).toEqual({
        ...result,
        message: alreadyAppliedMessage(result),
      });
      expect((await readRow("acme", orderId)).version).toBe(2);
    });
  });
});
