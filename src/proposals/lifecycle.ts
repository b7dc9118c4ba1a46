/**
 * The pure half of the proposal lifecycle, its states: which are open, when a
 * proposal has run out of time, a new proposal with the order after its
 * change, and the audit event of each step. What is said about them, to
 * people and models, is in sentences.ts.
 */

import type { Person } from "../core/person";
import type { AccountAuditEvent } from "../orders/audit-event";
import { applyChange, type OrderChange } from "../orders/change-kinds";
import type { Plan } from "../orders/kinds/kind";
import type { OrderRecord } from "../orders/order-record";
import { diffStates, type OrderState, orderState } from "../orders/order-state";
import { type ConfirmResult, type Proposal, ProposalSchema } from "./proposal-schemas";

export function isOpen(proposal: Proposal): boolean {
  return proposal.status === "pending_approval" || proposal.status === "approved";
}

export function isDue(proposal: Proposal, now: Date): boolean {
  return now.getTime() >= Date.parse(proposal.expires_at);
}

/** What the apply tools (the change kinds' apply tools, mcp/change.tools.ts) answer about a proposal. */
export function confirmResult(
  proposal: Proposal,
  status: ConfirmResult["status"],
  message: string,
  approvalUrl: string,
): ConfirmResult {
  const { proposal_id, order_id, action, expires_at, outcome } = proposal;
  return { status, proposal_id, order_id, action, message, approval_url: approvalUrl, expires_at, outcome };
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
