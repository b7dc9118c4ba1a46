import { describe, expect, it } from "vitest";
import { ACTION_LABELS, actionLabel, applyChange, ChangeActionSchema } from "../../src/orders/change-kinds";
import {
  changeValueLines,
  exceptionLabel,
  fieldLabel,
  fulfillmentLabel,
  humanize,
  humanizeText,
  orderStatusLabel,
  paymentLabel,
} from "../../src/orders/labels";
import { diffStates, orderState } from "../../src/orders/order-state";
import { ProposalStatusSchema } from "../../src/proposals/proposal-schemas";
import { PROPOSAL_STATUS_LABELS, proposalStatusLabel } from "../../src/proposals/status-labels";
import { RunStatusSchema } from "../../src/runs/run-schemas";
import { RUN_STATUS_LABELS } from "../../src/web/runs/run-status-labels";
import { evidence, exception, order as orderRecord } from "../helpers/order-records";

// The approver and the operator read words, never internal names: every
// action, state and field the approval app and the MCP Apps cards show has a
// label, one vocabulary for both, and free text loses its names. (The run
// statuses are the approval app's own, checked here with the rest.)

const SNAKE = /\b[a-z]+(?:_[a-z]+)+\b/;

describe("labels for the closed sets", () => {
  it("every action, proposal status and run status has a label without underscores", () => {
    for (const action of ChangeActionSchema.options) expect(ACTION_LABELS[action]).not.toMatch(/_/);
    for (const status of ProposalStatusSchema.options) expect(PROPOSAL_STATUS_LABELS[status]).not.toMatch(/_/);
    for (const status of RunStatusSchema.options) expect(RUN_STATUS_LABELS[status]).not.toMatch(/_/);
    expect(new Set(Object.values(ACTION_LABELS)).size).toBe(ChangeActionSchema.options.length);
  });

  it("reads as a person says it, not as the internal names", () => {
    expect(actionLabel("release_inventory_hold_and_cancel_order")).toBe("Release held stock and cancel order");
    expect(proposalStatusLabel("pending_approval")).toBe("Waiting for approval");
    expect(proposalStatusLabel("approved")).toBe("Approved, not applied yet");
    expect(proposalStatusLabel("stale")).toBe("Out of date");
    expect(proposalStatusLabel("superseded")).toBe("Replaced");
    // The confirm tools' "not approved yet" is the same state, in the same words.
    expect(proposalStatusLabel("approval_required")).toBe(proposalStatusLabel("pending_approval"));
    expect(orderStatusLabel("payment_failed")).toBe("Payment failed");
    expect(fulfillmentLabel("awaiting_pick")).toBe("Waiting to be picked");
    expect(exceptionLabel("duplicate_order")).toBe("Duplicate order");
    expect(paymentLabel("captured")).toBe("Charged");
    expect(fieldLabel("shipping_address")).toBe("Shipping address");
  });

  it("an unknown name falls back to its words", () => {
    expect(orderStatusLabel("awaiting_customer_reply")).toBe("Awaiting customer reply");
    expect(exceptionLabel("some_future_exception")).toBe("Some future exception");
    expect(humanize("")).toBe("");
    // Names that happen to be Object.prototype members are not labels.
    expect(orderStatusLabel("constructor")).toBe("Constructor");
  });
});

describe("humanizeText", () => {
  it("replaces known names, lower case inside a sentence", () => {
    expect(humanizeText("duplicate_order (P2, Order Integrity): looks like a double submit")).toBe(
      "Duplicate order (P2, Order Integrity): looks like a double submit",
    );
    expect(humanizeText("fulfillment awaiting_pick: queued for warehouse")).toBe(
      "fulfillment waiting to be picked: queued for warehouse",
    );
  });

  it("decline codes read as words, as in an exception summary", () => {
    expect(humanizeText("Card declined twice (insufficient_funds); 3 units still held in ATL-2.")).toBe(
      "Card declined twice (insufficient funds); 3 units still held in ATL-2.",
    );
    expect(humanizeText("attempt 1 declined: card_expired")).toBe("attempt 1 declined: card expired");
  });

  it("leaves unknown names (ids) exactly as they are", () => {
    expect(humanizeText("superseded by prop_abc_def")).toBe("superseded by prop_abc_def");
  });
});

describe("changeValueLines", () => {
  const order = orderRecord({
    order_id: "ORD-9",
    version: 1,
    evidence: evidence({
      payment: { state: "captured", attempts: [] },
      duplicate: { of_order_id: "ORD-8", signals: ["same lines"] },
      timeline: [],
    }),
    exception: { ...exception("duplicate_order"), team: "Order Integrity", sla_minutes: 60, summary: "double submit" },
  });
  // The values exactly as a proposal carries them, built by the domain code.
  const rows = diffStates(
    orderState(order),
    orderState(
      applyChange(order, { kind: "resolution", action: "cancel_duplicate_order" }, "2026-12-01T06:05:00.000Z"),
    ),
  );
  const row = (field: string) => {
    const found = rows.find((r) => r.field === field);
    if (!found) throw new Error(`no ${field} row`);
    return found;
  };

  it("turns every before and after value of a real proposal into words", () => {
    expect(changeValueLines("status", row("status").after)).toEqual(["Cancelled"]);
    expect(changeValueLines("exception", row("exception").before)).toEqual(["Duplicate order (open, Order Integrity)"]);
    expect(changeValueLines("exception", row("exception").after)).toEqual([
      "Duplicate order (resolved, Order Integrity)",
    ]);
    expect(changeValueLines("payment", row("payment").after)).toEqual(["Refunded"]);
    expect(changeValueLines("inventory", row("inventory").before)).toEqual([
      "SKU-3390 × 1 reserved at ATL-2",
      "SKU-5510 × 2 reserved at ATL-2",
    ]);
    expect(changeValueLines("fulfillment", row("fulfillment").before)).toEqual([
      "Waiting to be picked: queued for warehouse",
    ]);
    for (const r of rows) {
      for (const line of [...changeValueLines(r.field, r.before), ...changeValueLines(r.field, r.after)])
        expect(line).not.toMatch(SNAKE);
    }
  });

  it("none, addresses and values it cannot parse", () => {
    expect(changeValueLines("exception", "none")).toEqual(["None"]);
    expect(changeValueLines("shipping_address", "Jonas Becker, 12 Pine St, Austin, TX 78701, US")).toEqual([
      "Jonas Becker, 12 Pine St, Austin, TX 78701, US",
    ]);
    expect(changeValueLines("inventory", "something odd")).toEqual(["something odd"]);
    expect(changeValueLines("exception", "fraud_review")).toEqual(["Fraud review"]);
  });
});
