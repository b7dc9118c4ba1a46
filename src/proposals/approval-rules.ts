import type { FourEyesRule } from "../config/four-eyes";
import { type Approver, roleOf } from "../config/token-maps";
import type { AppError } from "../core/errors";
import { samePerson } from "../core/person";
import type { Risk } from "../core/risk";
import { type ChangeAction, movesMoney } from "../orders/change-kinds";
import type { OrderRecord } from "../orders/order-record";
import type { Proposal } from "./proposal-schemas";

/**
 * Four eyes: a risky change needs two distinct approvers, and the person who
 * proposed a change can never approve it. Pure: the proposal service asks these when a
 * proposal is made and when someone approves.
 */
const RISK_ORDER: Readonly<Record<Risk, number>> = { low: 0, medium: 1, high: 2 };

function dollars(cents: number): string {
  return `$${(cents / 100).toFixed(2)}`;
}

/** Why this change needs a second approver, or null when one is enough. */
export function secondApproverReason(
  rule: FourEyesRule,
  change: { readonly action: ChangeAction; readonly risk: Risk },
  order: Pick<OrderRecord, "total_cents">,
): string | null {
  if (rule.overCents !== null && movesMoney(change.action) && order.total_cents >= rule.overCents) {
    return `it moves ${dollars(order.total_cents)} of the customer's money, at or above the ${dollars(rule.overCents)} (FOUR_EYES_OVER_CENTS) that needs two approvers`;
  }
  if (rule.risk !== null && RISK_ORDER[change.risk] >= RISK_ORDER[rule.risk]) {
    return `its risk is ${change.risk}, and changes of ${rule.risk} risk or more (FOUR_EYES_RISK) need two approvers`;
  }
  return null;
}

/**
 * Whether `approver` is the person who proposed: the same identity (their
 * approver entry shares the operator's id, or links to that operator), or a
 * name that reads the same as the proposer's.
 */
export function isProposer(proposal: Pick<Proposal, "created_by" | "created_by_id">, approver: Approver): boolean {
  const proposer = { id: proposal.created_by_id, name: proposal.created_by };
  return (
    samePerson(proposer, { id: approver.id, name: approver.approver }) ||
    (approver.operator !== undefined && samePerson(proposer, { id: approver.operator_id, name: approver.operator }))
  );
}

/** A viewer sees the queue and decides nothing. */
export function roleRefusal(approver: Approver): AppError | null {
  if (roleOf(approver) !== "viewer") return null;
  return {
    code: "forbidden",
    message: `deciding a proposal needs the approver role; ${approver.approver} has the viewer role, which can only see the queue`,
  };
}

/** Why this approver may not approve this proposal now (the proposer never may, nobody twice); null when they may. */
export function approvalRefusal(proposal: Proposal, approver: Approver): AppError | null {
  if (isProposer(proposal, approver)) {
    return {
      code: "forbidden",
      message: `you proposed this change (as ${proposal.created_by}), so you cannot also approve it; another approver must decide it`,
    };
  }
  const mine = proposal.approvals.find((a) =>
    samePerson({ id: a.approver_id, name: a.approver }, { id: approver.id, name: approver.approver }),
  );
  if (mine) {
    const left = proposal.approvals_required - proposal.approvals.length;
    return {
      code: "conflict",
      message: `you already approved this proposal at ${mine.at}; it needs ${left === 1 ? "a second, different approver" : `${left} more approvers`}, and one person cannot be both`,
    };
  }
  return null;
}
