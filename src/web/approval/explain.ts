/**
 * What a proposal means for the approver, in sentences: the money it moves
 * and, whatever its state, what happens next. Pure, so every wording is
 * tested without a page; times stay values ({at}) so the page can show each
 * as "in 12 min" with the exact time on hover.
 */

import { actionLabel, moneyRule } from "../../orders/change-kinds";
import { paymentLabel } from "../../orders/labels";
import type { OrderRecord } from "../../orders/order-record";
import type { ProposalView } from "../../proposals/proposal-schemas";
import { money } from "../format";

/** Text, a time (shown relative, exact on hover), or a proposal id (as a link when `link`). */
type Segment = string | { readonly at: string } | { readonly proposal: string; readonly link?: boolean };
export type Sentence = readonly Segment[];

interface Stake {
  /** False for actions that move no money. */
  readonly movesMoney: boolean;
  /** A few words for the list: "Refund $66.00". */
  readonly short: string;
  /** A sentence for the review page. */
  readonly detail: string;
}

/**
 * The payment state the change starts from: pinned in the proposal's
 * expected changes when the change touches the payment, else the order's.
 */
function paymentBefore(proposal: ProposalView, order: OrderRecord | null): string | undefined {
  return proposal.expected_changes.find((c) => c.field === "payment")?.before ?? order?.evidence?.payment.state;
}

/**
 * The money an action moves, in words: the amount from the order's total, the
 * move from the action's kind (its money rule, orders/kinds/, which reads the
 * payment before the change), in the past tense once applied.
 */
export function moneyAtStake(proposal: ProposalView, order: OrderRecord | null): Stake {
  const rule = moneyRule(proposal.action);
  if (!rule) return { movesMoney: false, short: "", detail: "No money moves with this change." };
  if (!order)
    return {
      movesMoney: true,
      short: "Amount unknown",
      detail: "The order no longer exists, so the amount cannot be shown.",
    };
  const done = proposal.status === "applied";
  const amount = money(order.total_cents, order.currency);
  const payment = paymentBefore(proposal, order);
  const cancels = `${done ? "Cancelled" : "Cancels"} a ${amount} order`;
  const move = rule(payment);
  switch (move.move) {
    case "refund":
      return {
        movesMoney: true,
        short: `Refund ${amount}`,
        detail: `${done ? "Refunded" : "Refunds"} ${amount} to the customer: ${move.because}.`,
      };
    case "void":
      return {
        movesMoney: true,
        short: `Void ${amount} hold`,
        detail: `${done ? "Voided" : "Voids"} the ${amount} authorization: the customer was not charged, and the hold on their card ${done ? "was" : "is"} released.`,
      };
    case "nothing_to_refund":
      return {
        movesMoney: true,
        short: `Cancel ${amount} order`,
        detail: `${cancels}. Nothing to refund: the payment is ${paymentLabel(payment ?? "unknown").toLowerCase()}.`,
      };
    case "kept":
      return {
        movesMoney: true,
        short: `Cancel ${amount} order`,
        detail: `${cancels}. This action ${done ? "did" : "does"} not return the ${amount} already ${move.held}.`,
      };
    case "never_paid":
      return {
        movesMoney: true,
        short: `Cancel ${amount} order`,
        detail: `${cancels} that was never paid (payment ${paymentLabel(payment ?? "unknown").toLowerCase()}); nothing to refund.`,
      };
  }
}

interface StateExplanation {
  /** The sentences, in reading order; the first says what happened or what to do. */
  readonly sentences: readonly Sentence[];
  /** Good news (decided, applied), bad news (refused, gone), or neither. */
  readonly tone: "notice" | "error" | "plain";
}

/** Why the proposal is where it is, and the approver's (or the agent's) next step. */
export function explainState(proposal: ProposalView): StateExplanation {
  const id = { proposal: proposal.proposal_id };
  const decidedBy = proposal.decided_by ?? "an approver";
  const because = proposal.decision_reason ? `: “${proposal.decision_reason}”` : "";
  // A reason that ends its own sentence inside the quotes gets no second full stop after them.
  const end = /[.!?]$/.test(proposal.decision_reason ?? "") ? "" : ".";
  switch (proposal.status) {
    case "pending_approval":
      return {
        tone: "plain",
        sentences: [
          [
            "Waiting for an approver. Approving does not change the order by itself: the agent applies it when it confirms proposal ",
            id,
            ".",
          ],
          ["The decision must be made before it expires ", { at: proposal.expires_at }, "."],
        ],
      };
    case "approved":
      return {
        tone: "notice",
        sentences: [
          ["Approved. Nothing has changed yet: ask the agent to confirm proposal ", id, "."],
          ["Approved by ", decidedBy, " ", { at: proposal.decided_at ?? proposal.created_at }, because, end],
          [
            "It must be confirmed before it expires ",
            { at: proposal.expires_at },
            "; after that it cannot be applied.",
          ],
        ],
      };
    case "applying": {
      const next = proposal.provider_apply?.next_check_at;
      return {
        tone: "plain",
        sentences: [
          [
            "Approved and sent to the provider, which has not confirmed it yet; the change may or may not have been made there. Nothing here is changed until it answers.",
          ],
          next
            ? [
                "The server asks the provider again ",
                { at: next },
                ", by the same idempotency key, so the change is never made twice.",
              ]
            : [
                proposal.status_reason ?? "The server has stopped asking the provider.",
                " Ask the agent to confirm proposal ",
                id,
                " again to resume the checks.",
              ],
        ],
      };
    }
    case "failed":
      return {
        tone: "error",
        sentences: [
          ["The provider refused the change: ", proposal.status_reason ?? "no reason given", ". Nothing was changed."],
          ["Ask the agent for a new proposal if the change is still needed."],
        ],
      };
    case "applied": {
      const outcome = proposal.outcome;
      if (!outcome) return { tone: "notice", sentences: [["Applied to order ", proposal.order_id, "."]] };
      return {
        tone: "notice",
        sentences: [
          [
            "Applied ",
            { at: outcome.applied_at },
            ": ",
            actionLabel(outcome.action).toLowerCase(),
            " on order ",
            outcome.order_id,
            ".",
          ],
          [
            "Approved by ",
            outcome.approved_by,
            ", confirmed by ",
            outcome.applied_by,
            ". The order went from version ",
            String(outcome.order_version_before),
            " to ",
            String(outcome.order_version_after),
            ".",
          ],
        ],
      };
    }
    case "rejected":
      return {
        tone: "error",
        sentences: [
          ["Rejected by ", decidedBy, " ", { at: proposal.decided_at ?? proposal.created_at }, because, end],
          ["Nothing will change; the agent is told so if it tries to confirm it."],
        ],
      };
    case "expired":
      return {
        tone: "error",
        sentences: [
          [
            "Expired ",
            { at: proposal.expires_at },
            " before it was ",
            proposal.decided_by ? "confirmed" : "approved",
            ". Nothing was changed.",
          ],
          ["Ask the agent for a new proposal if the change is still needed."],
        ],
      };
    case "stale":
      return {
        tone: "error",
        sentences: [
          [
            "Out of date: ",
            proposal.status_reason ?? `order ${proposal.order_id} changed after version ${proposal.pinned_version}`,
            ". Nothing was changed.",
          ],
          ["A proposal only applies to the order exactly as it was when proposed. Ask the agent for a new proposal."],
        ],
      };
    case "superseded":
      return {
        tone: "error",
        sentences: proposal.superseded_by
          ? [
              [
                "Replaced by a newer proposal for the same order: ",
                { proposal: proposal.superseded_by, link: true },
                ". Nothing was changed; decide on the newer one instead.",
              ],
            ]
          : [["Replaced by a newer proposal for the same order. Nothing was changed."]],
      };
  }
}

/**
 * The line above "The order now" while the order may still change: before a
 * decision it waits for two steps, after approval only for the agent's.
 * Decided proposals need none: the order shown is the order as it is.
 */
export function orderNowNote(proposal: ProposalView): string | null {
  switch (proposal.status) {
    case "pending_approval":
      return "Unchanged until the proposal is approved and the agent confirms it.";
    case "approved":
      return "Unchanged until the agent confirms the approved proposal.";
    case "applying":
      return "Unchanged until the provider confirms the change.";
    default:
      return null;
  }
}
