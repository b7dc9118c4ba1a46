import { describe, expect, it } from "vitest";
import type { ChangeAction } from "../../../src/orders/change-kinds";
import type { Payment } from "../../../src/orders/evidence";
import type { OrderRecord } from "../../../src/orders/order-record";
import { ProposalStatusSchema, type ProposalView } from "../../../src/proposals/proposal-schemas";
import { explainState, moneyAtStake, orderNowNote, type Sentence } from "../../../src/web/approval/explain";
import { evidence, order as orderRecord } from "../../helpers/order-records";

// What the approver is told: the money a proposal moves, and for every state
// what happened and what to do next.

function order(total: number, payment: Payment["state"] | null): OrderRecord {
  return orderRecord({
    order_id: "ORD-1017",
    total_cents: total,
    evidence: payment === null ? null : evidence({ payment: { state: payment, attempts: [] } }),
    exception: null,
  });
}

function proposal(action: ChangeAction, extra: Partial<ProposalView> = {}): ProposalView {
  return {
    proposal_id: "prop_abc",
    order_id: "ORD-1017",
    kind: action === "change_shipping_address" ? "address_change" : "resolution",
    action,
    change: { kind: "resolution", action: "escalate_to_human" },
    pinned_version: 1,
    status: "pending_approval",
    risk: "high",
    rationale: "",
    evidence: [],
    expected_changes: [],
    created_by: "Ada Ops",
    created_by_id: "ada-ops",
    created_at: "2026-12-01T06:00:00.000Z",
    expires_at: "2026-12-01T06:15:00.000Z",
    decided_by: null,
    decided_at: null,
    decision_reason: null,
    outcome: null,
    status_reason: null,
    superseded_by: null,
    approvals_required: 1,
    approvals: [],
    second_approver_reason: null,
    provider_apply: null,
    approval_url: "http://localhost/approvals/prop_abc",
    change_summary: "",
    ...extra,
  };
}

/** A sentence as plain text, times as [at …] and ids as [id]. */
function words(sentence: Sentence): string {
  return sentence.map((s) => (typeof s === "string" ? s : "at" in s ? `[at ${s.at}]` : `[${s.proposal}]`)).join("");
}

describe("moneyAtStake", () => {
  it("cancelling a charged duplicate refunds its total", () => {
    expect(moneyAtStake(proposal("cancel_duplicate_order"), order(6600, "captured"))).toEqual({
      movesMoney: true,
      short: "Refund $66.00",
      detail: "Refunds $66.00 to the customer: the duplicate was charged.",
    });
  });

  it("cancelling an authorized duplicate voids the authorization", () => {
    const stake = moneyAtStake(proposal("cancel_duplicate_order"), order(15800, "authorized"));
    expect(stake.short).toBe("Void $158.00 hold");
    expect(stake.detail).toContain("Voids the $158.00 authorization");
  });

  it("the payment state pinned in the proposal wins over the order's (which an apply has changed)", () => {
    const applied = proposal("cancel_duplicate_order", {
      status: "applied",
      expected_changes: [{ field: "payment", before: "captured", after: "refunded" }],
    });
    expect(moneyAtStake(applied, order(6600, "refunded")).detail).toBe(
      "Refunded $66.00 to the customer: the duplicate was charged.",
    );
  });

  it("cancelling an order (cancel_order) refunds what was charged, voids an authorization, otherwise refunds nothing", () => {
    expect(moneyAtStake(proposal("cancel_order"), order(4800, "captured"))).toEqual({
      movesMoney: true,
      short: "Refund $48.00",
      detail: "Refunds $48.00 to the customer: the order was charged and has not shipped.",
    });
    expect(moneyAtStake(proposal("cancel_order", { status: "applied" }), order(4800, "captured")).detail).toBe(
      "Refunded $48.00 to the customer: the order was charged and has not shipped.",
    );
    expect(moneyAtStake(proposal("cancel_order"), order(4800, "authorized")).short).toBe("Void $48.00 hold");
    expect(moneyAtStake(proposal("cancel_order"), order(4800, "declined")).detail).toBe(
      "Cancels a $48.00 order. Nothing to refund: the payment is declined.",
    );
    expect(moneyAtStake(proposal("cancel_order"), order(4800, null)).detail).toBe(
      "Cancels a $48.00 order. Nothing to refund: the payment is unknown.",
    );
  });

  it("releasing a declined order's stock cancels it with nothing to refund", () => {
    const stake = moneyAtStake(proposal("release_inventory_hold_and_cancel_order"), order(8000, "declined"));
    expect(stake).toEqual({
      movesMoney: true,
      short: "Cancel $80.00 order",
      detail: "Cancels a $80.00 order that was never paid (payment declined); nothing to refund.",
    });
  });

  it("says when a cancellation does not return money already taken", () => {
    expect(moneyAtStake(proposal("release_inventory_hold_and_cancel_order"), order(8000, "captured")).detail).toBe(
      "Cancels a $80.00 order. This action does not return the $80.00 already charged.",
    );
  });

  it("actions that move no money say so; a vanished order says the amount is unknown", () => {
    for (const action of [
      "notify_customer_backorder",
      "retry_fulfillment",
      "escalate_to_human",
      "change_shipping_address",
    ] as const) {
      expect(moneyAtStake(proposal(action), order(100, "captured"))).toEqual({
        movesMoney: false,
        short: "",
        detail: "No money moves with this change.",
      });
    }
    expect(moneyAtStake(proposal("cancel_duplicate_order"), null).short).toBe("Amount unknown");
  });
});

describe("explainState", () => {
  it("a reason that ends its own sentence gets no second full stop after the quotes", () => {
    const decided = { decided_by: "Avery", decided_at: "2026-12-01T06:01:00.000Z", decision_reason: "checked it." };
    for (const status of ["approved", "rejected"] as const) {
      const said = explainState(proposal("cancel_duplicate_order", { status, ...decided })).sentences.map(words);
      expect(said.some((sentence) => sentence.endsWith(": “checked it.”"))).toBe(true);
      expect(said.join(" ")).not.toContain("”.");
    }
  });

  it("approved: nothing has changed yet, ask the agent to confirm", () => {
    const state = explainState(
      proposal("cancel_duplicate_order", {
        status: "approved",
        decided_by: "Avery",
        decided_at: "2026-12-01T06:01:00.000Z",
        decision_reason: "checked",
      }),
    );
    expect(state.tone).toBe("notice");
    expect(state.sentences.map(words)).toEqual([
      "Approved. Nothing has changed yet: ask the agent to confirm proposal [prop_abc].",
      "Approved by Avery [at 2026-12-01T06:01:00.000Z]: “checked”.",
      "It must be confirmed before it expires [at 2026-12-01T06:15:00.000Z]; after that it cannot be applied.",
    ]);
  });

  it("applied: when, by whom, and the versions", () => {
    const state = explainState(
      proposal("cancel_duplicate_order", {
        status: "applied",
        outcome: {
          proposal_id: "prop_abc",
          order_id: "ORD-1017",
          action: "cancel_duplicate_order",
          applied_at: "2026-12-01T06:02:00.000Z",
          applied_by: "Ada Ops",
          approved_by: "Avery",
          order_version_before: 1,
          order_version_after: 2,
          changes: [],
        },
      }),
    );
    expect(state.sentences.map(words)).toEqual([
      "Applied [at 2026-12-01T06:02:00.000Z]: cancel duplicate order on order ORD-1017.",
      "Approved by Avery, confirmed by Ada Ops. The order went from version 1 to 2.",
    ]);
  });

  it("stale says why; superseded links the newer proposal", () => {
    const stale = explainState(
      proposal("cancel_duplicate_order", {
        status: "stale",
        status_reason: "order ORD-1017 moved from version 1 to 2 after this proposal was made",
      }),
    );
    expect(words(stale.sentences[0] ?? [])).toBe(
      "Out of date: order ORD-1017 moved from version 1 to 2 after this proposal was made. Nothing was changed.",
    );
    const superseded = explainState(
      proposal("change_shipping_address", { status: "superseded", superseded_by: "prop_new" }),
    );
    expect(superseded.sentences[0]).toContainEqual({ proposal: "prop_new", link: true });
    expect(superseded.tone).toBe("error");
  });

  it("every state has an explanation that names no internal state", () => {
    for (const status of ProposalStatusSchema.options) {
      const text = explainState(proposal("retry_fulfillment", { status })).sentences.map(words).join(" ");
      expect(text.length).toBeGreaterThan(20);
      expect(text).not.toMatch(/pending_approval|superseded_by|status_reason/);
    }
  });
});

describe("orderNowNote", () => {
  it("before a decision the order waits for approval and the agent; after approval, only for the agent", () => {
    expect(orderNowNote(proposal("retry_fulfillment"))).toBe(
      "Unchanged until the proposal is approved and the agent confirms it.",
    );
    expect(orderNowNote(proposal("retry_fulfillment", { status: "approved" }))).toBe(
      "Unchanged until the agent confirms the approved proposal.",
    );
  });

  it("the provider's pending confirmation is named while a change is applying", () => {
    expect(orderNowNote(proposal("retry_fulfillment", { status: "applying" }))).toBe(
      "Unchanged until the provider confirms the change.",
    );
  });

  it("a decided proposal needs no note: the order shown is the order as it is", () => {
    const waiting = new Set(["pending_approval", "approved", "applying"]);
    const decided = ProposalStatusSchema.options.filter((status) => !waiting.has(status));
    expect(decided.length).toBeGreaterThanOrEqual(6);
    for (const status of decided) {
      expect(orderNowNote(proposal("retry_fulfillment", { status })), status).toBeNull();
    }
  });
});
