/**
 * Every sentence the proposal machinery says about a proposal, to a person or
 * a model: why it cannot be decided or applied, what confirm answers, why a
 * new one is refused. Pure; the states these sentences describe are in
 * lifecycle.ts, and a kind's own words (its noun, its summary, its apply tool)
 * come from the registry of change kinds.
 */

import { CHANGE_KINDS, changeSummary } from "../orders/change-kinds";
import type { Proposal } from "./proposal-schemas";

/** Why a proposal can no longer be decided or applied, in words a model can act on. */
export function refusal(proposal: Proposal, attempted: "decided" | "applied"): string {
  const id = proposal.proposal_id;
  switch (proposal.status) {
    case "expired":
      return `proposal ${id} expired at ${proposal.expires_at} without being ${attempted === "decided" ? "approved" : "applied"}; nothing was changed. Ask for a new proposal.`;
    case "rejected":
      return `proposal ${id} was rejected by ${proposal.decided_by ?? "an approver"} (${proposal.decision_reason ?? "no reason given"}); it will not be applied. Ask for a new proposal if the situation changed.`;
    case "stale":
      return `proposal ${id} is stale: ${proposal.status_reason ?? `order ${proposal.order_id} changed after version ${proposal.pinned_version}`}; nothing was changed. Ask for a new proposal.`;
    case "superseded":
      return `proposal ${id} was superseded by ${proposal.superseded_by ?? "a newer proposal"} for the same order; it will not be ${attempted === "decided" ? "decided" : "applied"}. Use the newer proposal.`;
    case "applied":
      return `proposal ${id} was already applied at ${proposal.outcome?.applied_at ?? "an earlier time"}`;
    case "approved":
      return `proposal ${id} was already approved by ${proposal.decided_by ?? "an approver"}`;
    case "applying":
      return `proposal ${id} was approved and is being applied: the provider's answer is awaited`;
    case "failed":
      return `proposal ${id} was refused by the provider (${proposal.status_reason ?? "no reason given"}); nothing was changed. Ask for a new proposal if the change is still needed.`;
    case "pending_approval":
      return `proposal ${id} is waiting for approval`;
  }
}

/** Why a proposal went stale: the order moved on from the version it pinned. */
export function movedOn(proposal: Proposal, currentVersion: number): string {
  return `order ${proposal.order_id} moved from version ${proposal.pinned_version} to ${currentVersion} after this proposal was made`;
}

/** What confirm answers the one call that applied the proposal. */
export function appliedMessage(proposal: Pick<Proposal, "action" | "order_id">): string {
  return `${proposal.action} was applied to ${proposal.order_id}`;
}

/**
 * For a proposal with some but not all of its approvals: how many are
 * recorded, by whom, and who may give the next one. Null otherwise.
 */
export function approvalsSoFar(
  proposal: Pick<Proposal, "approvals" | "approvals_required" | "created_by">,
): string | null {
  const given = proposal.approvals.length;
  if (given === 0 || given >= proposal.approvals_required) return null;
  const who = proposal.approvals.map((approval) => approval.approver).join(" and ");
  const left = proposal.approvals_required - given;
  return `${given} of ${proposal.approvals_required} approvals ${given === 1 ? "is" : "are"} recorded (by ${who}); ${left === 1 ? "the next" : `the next ${left}`} must come from a different approver, not ${who} and not the proposer ${proposal.created_by}`;
}

/**
 * What every later confirm answers. The outcome is the stored one, unchanged;
 * the sentence says so, and when, so an agent that retried (or lost the first
 * answer) does not report a second change.
 */
export function alreadyAppliedMessage(proposal: Pick<Proposal, "action" | "order_id" | "outcome">): string {
  const at = proposal.outcome?.applied_at ?? "an earlier time";
  return `${proposal.action} was already applied to ${proposal.order_id} at ${at}; this call changed nothing`;
}

export function approvalRequired(proposal: Proposal, approvalUrl: string): string {
  const partly = approvalsSoFar(proposal);
  if (partly) {
    return `${partly}. Ask them to approve at ${approvalUrl}; until then nothing can be applied and nothing was changed. Confirm again before ${proposal.expires_at}.`;
  }
  return `a human approver must approve this proposal at ${approvalUrl} before it can be applied; nothing was changed. Ask the user to approve it, then confirm again before ${proposal.expires_at}.`;
}

/** Why a new proposal is refused while an approved one of its kind waits to be applied, and what to do. */
export function approvedConflict(approved: Proposal): string {
  const { noun, applyTool } = CHANGE_KINDS[approved.kind];
  if (approved.status === "applying") {
    return (
      `order ${approved.order_id} already has an approved ${noun}, ${approved.proposal_id} (${changeSummary(approved.change)}), ` +
      "that is being applied: the provider has not confirmed it yet, and a second one would conflict with it. " +
      `Check it with get_proposal; once it is settled, propose again if still needed.`
    );
  }
  return (
    `order ${approved.order_id} already has an approved ${noun}, ${approved.proposal_id} (${changeSummary(approved.change)}), ` +
    `approved by ${approved.decided_by ?? "an approver"} and not applied yet; a second one would conflict with it. ` +
    `Apply it with ${applyTool.name} if it is still wanted, or let it expire at ${approved.expires_at}, then propose again.`
  );
}

/**
 * Why a proposal is refused at MAX_OPEN_PROPOSALS: the proposals that count,
 * split as an approver sees them, and when room opens by itself.
 */
export function capRefusal(open: readonly Proposal[], maxOpen: number): string {
  const approved = open.filter((p) => p.status === "approved").length;
  const firstExpiry = open.map((p) => p.expires_at).sort()[0] ?? "their expiry";
  return (
    `this account already has ${open.length} open proposals (${open.length - approved} waiting for approval, ${approved} approved but not applied), ` +
    `and MAX_OPEN_PROPOSALS allows ${maxOpen}; ask an approver to decide the waiting ones, apply the approved ones, ` +
    `or wait until the first expires at ${firstExpiry}, then propose again`
  );
}

/** What confirm answers while the provider has not confirmed the change. */
export function applyingMessage(proposal: Proposal, problem: string | null): string {
  const call = proposal.provider_apply;
  const next = call?.next_check_at
    ? `The server asks the provider again at ${call.next_check_at} by the idempotency key ${call.key} and settles it`
    : `The server has stopped asking the provider (${proposal.status_reason ?? "no check is scheduled"}); confirm again to make it ask again`;
  return (
    `${proposal.action} for ${proposal.order_id} was sent to the provider, which has not confirmed it${problem ? ` (${problem})` : ""}; ` +
    `the change may or may not have been made there, and nothing was changed here yet. ${next}. ` +
    "Call get_proposal to see the outcome; confirming again never sends the change twice."
  );
}
