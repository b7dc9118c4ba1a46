/**
 * Small steps the confirmation takes around an external provider's call:
 * storing what the call is at, the request every call of one proposal repeats
 * under the same key, and the audit event of each step.
 */
import type { AccountOrders } from "../orders/port";
import type { ApplyRequest } from "../provider/apply-provider";
import { proposalEvent, type StepOccurrence } from "./lifecycle";
import type { Proposal, ProviderApply } from "./proposal-schemas";
import type { ProposalRecords } from "./records";

/** The proposal's provider call with these fields changed, stored while it is still applying. */
export function withProviderCall(
  records: ProposalRecords,
  proposal: Proposal,
  change: Partial<ProviderApply>,
): Proposal {
  const call = proposal.provider_apply;
  if (!call) throw new Error(`proposal ${proposal.proposal_id} has no provider call to update`);
  return records.transition(proposal, "applying", proposal.status_reason, { provider_apply: { ...call, ...change } });
}

export function providerRequest(account: string, proposal: Proposal): ApplyRequest {
  const key = proposal.provider_apply?.key;
  if (!key) throw new Error(`proposal ${proposal.proposal_id} has no idempotency key`);
  return { key, account, order_id: proposal.order_id, change: proposal.change };
}

export async function recordStep(
  deps: { readonly orders: AccountOrders; readonly now: () => Date },
  proposal: Proposal,
  step: StepOccurrence,
  actorKind: "operator" | "system",
  actor: string,
  reason: string,
): Promise<void> {
  await deps.orders.recordEvent(
    proposalEvent({ proposal, ...step, actorKind, actor, reason, at: deps.now().toISOString() }),
  );
}
