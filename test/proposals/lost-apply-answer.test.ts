import { env } from "cloudflare:workers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ProposalView } from "../../src/proposals/proposal-schemas";
import { alreadyAppliedMessage } from "../../src/proposals/sentences";
import { D1AccountOrders } from "../../src/store/account-orders";
import { throwingFetcher, withOrderApi } from "../helpers/account-agent";
import { insertFreshOrder, readRow } from "../helpers/fresh-orders";
import { CLIENT_GENERATIONS, type McpTestClient } from "../helpers/mcp-client";
import {
  ACME_APPROVER,
  ACME_OPERATOR,
  approve,
  callError,
  confirm,
  getProposal,
  prepareAddress,
  propose,
} from "../helpers/ops";
import { countApplied } from "../helpers/rows";
import { ACME_TOKEN } from "../helpers/tokens";

// Over both protocol eras: the v1 client at 2025-11-25 and the v2 client at 2026-07-28.
describe.each(CLIENT_GENERATIONS)("$label", (generation) => {
  // Regressions from the code review: a lost apply answer, the operations
  // store surviving a retargeted ORDER_API, and retry_fulfillment keeping a
  // partly shipped order's address locked.
  let acme: McpTestClient;

  beforeAll(async () => {
    acme = await generation.connect(ACME_TOKEN);
  });
  afterAll(async () => {
    await acme.close();
  });

  /** Lands the apply in D1 directly, as if the AccountAgent's call succeeded but its answer was lost. */
  function applyBehindTheAgentsBack(proposal: ProposalView) {
    return new D1AccountOrders(env.DB, "acme").applyProposal({
      proposal_id: proposal.proposal_id,
      order_id: proposal.order_id,
      pinned_version: proposal.pinned_version,
      change: proposal.change,
      confirmed_by: ACME_OPERATOR,
      approved_by: ACME_APPROVER,
      approval_reason: "checked the evidence, go ahead",
    });
  }

  describe("an apply whose answer never reached the AccountAgent", () => {
    it("the next confirm returns the stored outcome instead of calling the proposal stale", async () => {
      const orderId = await insertFreshOrder({
        exception: "duplicate_order",
        status: "pending",
        paymentState: "captured",
      });
      const proposal = await propose(acme, orderId);
      await approve(proposal.proposal_id);
      const landed = await applyBehindTheAgentsBack(proposal);
      expect(landed.kind).toBe("applied");
      const rowAfterApply = await readRow("acme", orderId);

      const result = await confirm(acme, proposal.proposal_id);
      expect(result.status).toBe("applied");
      expect(result.outcome).toEqual(landed.kind === "applied" ? landed.outcome : null);
      // The change landed before this call, so this call did not make it.
      expect(result.message).toBe(alreadyAppliedMessage(result));
      expect((await getProposal(acme, proposal.proposal_id)).status).toBe("applied");
      expect(await countApplied(proposal.proposal_id)).toBe(1);
      expect(await readRow("acme", orderId)).toEqual(rowAfterApply);
    });

    it("get_proposal also recovers it, without any confirm", async () => {
      const orderId = await insertFreshOrder({ exception: "fulfillment_hold_missing_sku", status: "on_hold" });
      const proposal = await propose(acme, orderId);
      await approve(proposal.proposal_id);
      const landed = await applyBehindTheAgentsBack(proposal);
      const view = await getProposal(acme, proposal.proposal_id);
      expect(view.status).toBe("applied");
      expect(view.outcome).toEqual(landed.kind === "applied" ? landed.outcome : null);
    });
  });

  describe("the operations tools do not depend on the ORDER_API traffic target", () => {
    it("operations tools keep working when ORDER_API points somewhere that cannot serve them", async () => {
      const answer = await withOrderApi(
        "acme",
        () => throwingFetcher("target down"),
        (call) =>
          call({
            jsonrpc: "2.0",
            id: 1,
            method: "tools/call",
            params: { name: "list_order_exceptions", arguments: {} },
          }),
      );
      const result = (answer as { result?: { isError?: boolean; structuredContent?: { count?: number } } }).result;
      expect(result?.isError).toBeUndefined();
      expect(result?.structuredContent?.count).toBeGreaterThan(0);
    });
  });

  describe("retry_fulfillment on a partly shipped order", () => {
    it("keeps the order partially_shipped, so its address stays locked", async () => {
      const orderId = await insertFreshOrder({
        exception: "fulfillment_incomplete_carrier_timeout",
        status: "partially_shipped",
      });
      const row = await readRow("acme", orderId);
      const evidence = JSON.parse(String(row.evidence)) as { inventory: { allocations: { state: string }[] } };
      // The helper's carrier-timeout order: make sure one parcel has left, as in the seed's ORD-1014.
      evidence.inventory.allocations = evidence.inventory.allocations.map((a, i) =>
        i === 0 ? { ...a, state: "shipped" } : a,
      );
      await env.DB.prepare("UPDATE orders SET evidence = ? WHERE account = 'acme' AND order_id = ?")
        .bind(JSON.stringify(evidence), orderId)
        .run();

      const proposal = await propose(acme, orderId);
      expect(proposal.action).toBe("retry_fulfillment");
      await approve(proposal.proposal_id);
      const applied = await confirm(acme, proposal.proposal_id);
      expect(applied.status).toBe("applied");
      expect((await readRow("acme", orderId)).status).toBe("partially_shipped");

      const refusal = await callError(acme, "prepare_address_change", {
        order_id: orderId,
        address: {
          recipient: "A",
          line1: "1 Main St",
          city: "Austin",
          region: "TX",
          postal_code: "78701",
          country: "US",
        },
      });
      expect(refusal).toBe(`order ${orderId} is partially_shipped; its shipping address can no longer change`);
    });

    it("an order with a shipped parcel but another status is refused too", async () => {
      const orderId = await insertFreshOrder({ exception: null, status: "processing" });
      const row = await readRow("acme", orderId);
      const evidence = JSON.parse(String(row.evidence)) as { inventory: { allocations: { state: string }[] } };
      evidence.inventory.allocations = evidence.inventory.allocations.map((a) => ({ ...a, state: "shipped" }));
      await env.DB.prepare("UPDATE orders SET evidence = ? WHERE account = 'acme' AND order_id = ?")
        .bind(JSON.stringify(evidence), orderId)
        .run();
      const refusal = await callError(acme, "prepare_address_change", {
        order_id: orderId,
        address: {
          recipient: "A",
          line1: "1 Main St",
          city: "Austin",
          region: "TX",
          postal_code: "78701",
          country: "US",
        },
      });
      expect(refusal).toBe(`part of order ${orderId} has already shipped; its shipping address can no longer change`);
      // Control: without the shipped parcel the same request is a proposal.
      const fresh = await insertFreshOrder({ exception: null, status: "processing" });
      expect(
        (
          await prepareAddress(acme, fresh, {
            recipient: "A",
            line1: "1 Main St",
            city: "Austin",
            region: "TX",
            postal_code: "78701",
            country: "US",
          })
        ).status,
      ).toBe("pending_approval");
    });
  });
});
