/**
 * The pure half of the proposal lifecycle: which states are open, when a
 * proposal has run out of time, and the sentences people and models read.
 */

import type { Person } from "../core/person";
import type { Risk } from "../core/risk";
import type { AccountAuditEvent } from "../orders/audit-event";
import { CHANGE_KINDS } from "../orders/change-kinds";
import type { OrderRecord } from "../orders/order-record";
import { diffStates, formatAddress, type OrderState, orderState } from "../orders/order-state";
import { applyChange, type OrderChange } from "../orders/playbook";
import { type ConfirmResult, type Proposal, ProposalSchema } from "./schemas";

export function isOpen(proposal: Proposal): boolean {
  return proposal.status === "pending_approval" || proposal.status === "approved";
}

export function isDue(proposal: Proposal, now: Date): boolean {
  return now.getTime() >= Date.parse(proposal.expires_at);
}

const ACTION_WORDS: Record<Exclude<OrderChange["action"], "change_shipping_address">, string> = {
  cancel_duplicate_order: "Cancel the duplicate order and refund it",
  release_inventory_hold_and_cancel_order: "Release the held stock and cancel the unpaid order",
  notify_customer_backorder: "Tell the customer the missing item is backordered",
  retry_fulfillment: "Resubmit the remaining shipment to the carrier",
  escalate_to_human: "Hand the order to a human specialist",
};

/** The change in one line: enough to tell two proposals for the same order apart. */
export function changeSummary(change: OrderChange): string {
  switch (change.kind) {
    case "resolution":
      return ACTION_WORDS[change.action];
    case "address_change":
      return `Ship to ${formatAddress(change.address)}`;
  }
}

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

/** What confirm_resolution and apply_approved_change answer about a proposal. */
export function confirmResult(
  proposal: Proposal,
  status: ConfirmResult["status"],
  message: string,
  approvalUrl: string,
): ConfirmResult {
  const { proposal_id, order_id, action, expires_at, outcome } = proposal;
  return { status, proposal_id, order_id, action, message, approval_url: approvalUrl, expires_at, outcome };
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
  const { noun, confirmTool } = CHANGE_KINDS[approved.kind];
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
    `Apply it with ${confirmTool} if it is still wanted, or let it expire at ${approved.expires_at}, then propose again.`
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

/** Why the server proposes a change: the playbook's answer, or the address checks. */
export interface Plan {
  readonly risk: Risk;
  readonly rationale: string;
  readonly evidence: string[];
}

/**
 * A new pending proposal, with the order's state after the change computed
 * now, so the approver sees exactly what an apply will write. Parsed, so a
 * proposal that could not be stored is never built.
 */
export function newProposal(input: {
  id: string;
  order: OrderRecord;
  change: OrderChange;
  plan: Plan;
  operator: Person;
  now: Date;
  ttlMinutes: number;
  /** Why a second approver is needed (four eyes); null when one is enough. */
  secondApprover: string | null;
}): Proposal {
  const { order, change, plan, now } = input;
  const after = { ...orderState(applyChange(order, change, now.toISOString())), version: order.version + 1 };
  return ProposalSchema.parse({
    proposal_id: input.id,
    order_id: order.order_id,
    kind: change.kind,
    action: change.action,
    change,
    pinned_version: order.version,
    status: "pending_approval",
    risk: plan.risk,
    rationale: plan.rationale,
    evidence: plan.evidence,
    expected_changes: diffStates(orderState(order), after),
    created_by: input.operator.name,
    created_by_id: input.operator.id,
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + input.ttlMinutes * 60_000).toISOString(),
    decided_by: null,
    decided_at: null,
    decision_reason: null,
    outcome: null,
    status_reason: null,
    superseded_by: null,
    approvals_required: input.secondApprover === null ? 1 : 2,
    approvals: [],
    second_approver_reason: input.secondApprover,
    provider_apply: null,
  } satisfies Proposal);
}

/**
 * Each step of a proposal's life that leaves an audit event: the event's
 * type, and whether the step can happen more than once for one proposal (an
 * approval per approver, when a proposal needs more than one).
 */
const STEP_EVENTS = {
  proposed: { type: "proposal_created", repeats: false },
  superseded: { type: "proposal_superseded", repeats: false },
  approved: { type: "proposal_approved", repeats: true },
  rejected: { type: "proposal_rejected", repeats: false },
  // One approval of several (four eyes): the proposal still waits for the next approver.
  approval_recorded: { type: "proposal_approval_recorded", repeats: true },
  expired: { type: "proposal_expired", repeats: false },
  // The external provider's part (APPLY_PROVIDER): the change sent with its key, each call
  // that went unanswered (counted by the proposal's provider calls), and the answer that settled it.
  apply_requested: { type: "proposal_apply_requested", repeats: false },
  apply_unanswered: { type: "proposal_apply_unanswered", repeats: true },
  // The provider had never seen the key, so the change went again under the same key.
  apply_resent: { type: "proposal_apply_resent", repeats: true },
  // Someone confirmed again after the reconciler had stopped asking: it asks again.
  checks_resumed: { type: "proposal_apply_checks_resumed", repeats: true },
  apply_confirmed: { type: "proposal_apply_confirmed", repeats: false },
  apply_refused: { type: "proposal_apply_refused", repeats: false },
} as const;

type Step = keyof typeof STEP_EVENTS;
type RepeatableStep = { [S in Step]: (typeof STEP_EVENTS)[S]["repeats"] extends true ? S : never }[Step];

/** A step that happens once, or one occurrence of a step that repeats, counted from 1 (the first approval is 1). */
export type StepOccurrence =
  | { readonly step: Exclude<Step, RepeatableStep> }
  | { readonly step: RepeatableStep; readonly ordinal: number };

/**
 * The id of a step's event: the proposal's and the step's, so a step retried
 * after a lost answer writes no second event. A step that repeats adds its
 * ordinal, so a second approval is a second event, not a duplicate that the
 * trail's INSERT OR IGNORE would drop; the first occurrence keeps the plain
 * id, so trails written before steps could repeat read the same.
 */
export function proposalEventId(proposalId: string, occurrence: StepOccurrence): string {
  const id = `${proposalId}:${occurrence.step}`;
  if (!("ordinal" in occurrence)) return id;
  if (!Number.isInteger(occurrence.ordinal) || occurrence.ordinal < 1)
    throw new Error(`a step's ordinal counts from 1, not ${occurrence.ordinal}`);
  return occurrence.ordinal === 1 ? id : `${id}:${occurrence.ordinal}`;
}

/** The audit event for one step. */
export function proposalEvent(
  input: StepOccurrence & {
    proposal: Pick<Proposal, "proposal_id" | "order_id">;
    actorKind: AccountAuditEvent["actor_kind"];
    actor: string;
    reason: string;
    at: string;
    stateBefore?: OrderState;
  },
): AccountAuditEvent {
  const { proposal } = input;
  return {
    event_id: proposalEventId(proposal.proposal_id, input),
    order_id: proposal.order_id,
    event_type: STEP_EVENTS[input.step].type,
    actor_kind: input.actorKind,
    actor: input.actor,
    reason: input.reason,
    proposal_id: proposal.proposal_id,
    state_before: input.stateBefore ?? null,
    state_after: null,
    created_at: input.at,
  };
}
