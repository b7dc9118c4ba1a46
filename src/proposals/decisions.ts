import type { Approver } from "../config/config";
import { fail, ok, type Result } from "../core/errors";
import { approvalRefusal, roleRefusal } from "./approval-rules";
import type { Decision } from "./decision";
import { proposalEvent, type StepOccurrence } from "./lifecycle";
import type { Proposal, ProposalView } from "./proposal-schemas";
import type { ProposalServiceDeps } from "./proposal-service-deps";
import { PROPOSAL_NOT_FOUND_MESSAGE, type ProposalRecords } from "./records";
import { refusal } from "./sentences";

type DecisionDeps = Pick<ProposalServiceDeps, "store" | "orders" | "now" | "exclusive"> & {
  readonly records: ProposalRecords;
  readonly view: (proposal: Proposal) => ProposalView;
  /** Wakes whoever waits for this proposal's decision (wait_for_approval). */
  readonly decided: (proposalId: string) => void;
};

/**
 * A person's decision on a proposal, from the approval app only: an approval
 * that is not yet the last one needed is recorded and the proposal waits for
 * a different approver; the last approval, or a rejection, decides it.
 */
export class ProposalDecisions {
  constructor(private readonly deps: DecisionDeps) {}

  /** Approve or reject. Reachable only from the approval app, with an approver credential. */
  async decide(proposalId: string, decision: Decision, approver: Approver): Promise<Result<ProposalView>> {
    if (approver.account !== this.deps.orders.account) return fail("not_found", PROPOSAL_NOT_FOUND_MESSAGE);
    const role = roleRefusal(approver);
    if (role) return fail(role.code, role.message);
    return this.deps.exclusive(async () => {
      const current = await this.deps.records.current(proposalId);
      if (!current.ok) return current;
      const proposal = current.value.proposal;
      const wanted = decision.decision === "approve" ? "approved" : "rejected";
      if (proposal.status === wanted) return ok(this.deps.view(proposal));
      if (proposal.status !== "pending_approval") return fail("conflict", refusal(proposal, "decided"));
      const now = this.deps.now().toISOString();
      const refused = wanted === "approved" ? approvalRefusal(proposal, approver) : null;
      if (refused) return fail(refused.code, refused.message);
      const approvals =
        wanted === "approved"
          ? [
              ...proposal.approvals,
              { approver: approver.approver, approver_id: approver.id, at: now, reason: decision.reason },
            ]
          : proposal.approvals;
      if (wanted === "approved" && approvals.length < proposal.approvals_required) {
        // One approval of two: recorded, and the proposal waits for a different person.
        const reason = `approval ${approvals.length} of ${proposal.approvals_required}: ${decision.reason}`;
        await this.deps.orders.recordEvent(
          proposalEvent({
            proposal,
            step: "approval_recorded",
            ordinal: approvals.length,
            actorKind: "approver",
            actor: approver.approver,
            reason,
            at: now,
          }),
        );
        const partly: Proposal = { ...proposal, approvals };
        this.deps.store.update(partly, proposal.status);
        return ok(this.deps.view(this.deps.store.get(proposal.proposal_id) ?? partly));
      }
      // The approval that decides a proposal is its first "approved" step; the ones before it were recorded apart.
      const step: StepOccurrence = wanted === "approved" ? { step: wanted, ordinal: 1 } : { step: wanted };
      await this.deps.orders.recordEvent(
        proposalEvent({
          proposal,
          ...step,
          actorKind: "approver",
          actor: approver.approver,
          reason: decision.reason,
          at: now,
        }),
      );
      const decidedBy = wanted === "approved" ? approvals.map((a) => a.approver).join(" and ") : approver.approver;
      const decided: Proposal = {
        ...proposal,
        approvals,
        status: wanted,
        decided_by: decidedBy,
        decided_at: now,
        decision_reason: decision.reason,
      };
      this.deps.store.update(decided, proposal.status);
      this.deps.decided(proposal.proposal_id);
      return ok(this.deps.view(this.deps.store.get(proposal.proposal_id) ?? decided));
    });
  }
}
