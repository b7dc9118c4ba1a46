import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { APPLY_TOOLS } from "../../src/orders/change-kinds";
import type { ProposalView } from "../../src/proposals/proposal-schemas";
import { insertFreshOrder } from "../helpers/fresh-orders";
import { connectClient } from "../helpers/mcp-client";
import { approve, callError, callOk, confirm, details, propose } from "../helpers/ops";
import { countProposalEvents } from "../helpers/rows";
import { ACME_TOKEN } from "../helpers/tokens";

// Which apply tool applies what: each applies only the kinds that name it,
// refuses another kind's proposal naming the tool that does (the table in
// docs/operations.md is held to the same registry by test/docs/change-kinds-table.test.ts).

let acme: Client;
beforeAll(async () => {
  acme = await connectClient(ACME_TOKEN, "apply-tools");
});
afterAll(async () => {
  await acme.close();
});

describe("the apply tools", () => {
  it("each applies its own kinds: confirm_resolution resolutions, apply_approved_change address changes and cancellations", () => {
    expect(APPLY_TOOLS.map((use) => [use.tool.name, use.kinds])).toEqual([
      ["confirm_resolution", ["resolution"]],
      ["apply_approved_change", ["address_change", "cancel_order"]],
    ]);
  });

  it("confirm_resolution refuses an approved cancellation, naming apply_approved_change, and changes nothing", async () => {
    const orderId = await insertFreshOrder({ exception: null, paymentState: "captured", totalCents: 4_800 });
    const proposal = await callOk<ProposalView>(acme, "cancel_order", { order_id: orderId, reason: "asked by email" });
    await approve(proposal.proposal_id);
    expect(await callError(acme, "confirm_resolution", { proposal_id: proposal.proposal_id })).toBe(
      `proposal ${proposal.proposal_id} is a cancellation (from cancel_order): apply it with apply_approved_change; confirm_resolution applies only proposals from propose_resolution. Nothing was changed.`,
    );
    expect((await details(acme, orderId)).status).not.toBe("cancelled");
    expect(await countProposalEvents(proposal.proposal_id, "cancellation_applied")).toBe(0);
    expect((await confirm(acme, proposal.proposal_id, "apply_approved_change")).status).toBe("applied");
  });

  it("apply_approved_change refuses an approved resolution, naming confirm_resolution", async () => {
    const orderId = await insertFreshOrder({ exception: "duplicate_order" });
    const proposal = await propose(acme, orderId);
    await approve(proposal.proposal_id);
    expect(await callError(acme, "apply_approved_change", { proposal_id: proposal.proposal_id })).toBe(
      `proposal ${proposal.proposal_id} is a resolution (from propose_resolution): apply it with confirm_resolution; apply_approved_change applies only proposals from prepare_address_change or cancel_order. Nothing was changed.`,
    );
    expect(await countProposalEvents(proposal.proposal_id, "resolution_applied")).toBe(0);
    expect((await confirm(acme, proposal.proposal_id)).status).toBe("applied");
  });
});
