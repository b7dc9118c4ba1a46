import type { Approver } from "../config/config";
import { base64url } from "../core/encoding";
import { fail, ok, type Result } from "../core/errors";
import type { Person } from "../core/person";
import {
  CHANGE_KINDS,
  type ChangeKindName,
  changeSummary,
  type KindInput,
  type OrderChange,
} from "../orders/change-kinds";
import type { Plan } from "../orders/kinds/kind";
import type { OrderRecord } from "../orders/order-record";
import { orderState } from "../orders/order-state";
import { ORDER_NOT_FOUND_MESSAGE } from "../orders/tool-outputs";
import { secondApproverReason } from "./approval-rules";
import { ProposalConfirmation } from "./confirmation";
import type { Decision } from "./decision";
import { DecisionWaiters } from "./decision-waiters";
import { ProposalDecisions } from "./decisions";
import { isOpen, newProposal, proposalEvent } from "./lifecycle";
import type { ConfirmResult, Proposal, ProposalView } from "./proposal-schemas";
import type { ProposalServiceDeps } from "./proposal-service-deps";
import { ProposalStore } from "./proposal-store";
import { ProposalRecords } from "./records";
import { approvedConflict, capRefusal } from "./sentences";

function newProposalId(): string {
  return `prop_${base64url(crypto.getRandomValues(new Uint8Array(15)))}`;
}

/**
 * The proposal lifecycle: propose (inert), approve or reject (application
 * only), confirm (exactly once). Models reach propose, get and confirm through
 * MCP tools; decide is reachable only from the approval app.
 *
 * Proposing, deciding and confirming run one at a time in the account's
 * queue. Reading (a proposal, the pending list) does not wait in it: derived
 * changes such as expiry are written with a compare-and-set on the status,
 * so a reader can never overwrite a transition made meanwhile.
 */
export class ProposalService {
  private readonly waiters = new DecisionWaiters();
  private readonly records: ProposalRecords;
  private readonly confirmation: ProposalConfirmation;
  private readonly decisions: ProposalDecisions;

  constructor(private readonly deps: ProposalServiceDeps) {
    this.records = new ProposalRecords(deps);
    this.confirmation = new ProposalConfirmation({ ...deps, records: this.records });
    this.decisions = new ProposalDecisions({
      ...deps,
      records: this.records,
      view: (proposal) => this.view(proposal),
      decided: (proposalId) => this.waiters.wake(proposalId),
    });
  }

  view(proposal: Proposal): ProposalView {
    return {
      ...proposal,
      approval_url: this.deps.approvalUrl(proposal.proposal_id),
      change_summary: changeSummary(proposal.change),
    };
  }

  /**
   * Proposes a change of this kind to the order, by the kind's own rule
   * (orders/kinds/): the rule decides the change and its plan, or refuses
   * with a reason. The proposal service knows no kind; it opens what the rule proposes.
   */
  async propose<K extends ChangeKindName>(
    kind: K,
    orderId: string,
    input: KindInput<K>,
    operator: Person,
  ): Promise<Result<ProposalView>> {
    return this.deps.exclusive(async () => {
      const order = await this.deps.orders.record(orderId);
      if (!order) return fail("not_found", ORDER_NOT_FOUND_MESSAGE);
      const proposed = CHANGE_KINDS[kind].propose(order, input);
      if (!proposed.ok) return proposed;
      return this.openProposal(order, proposed.value.change, proposed.value.plan, operator);
    });
  }

  /**
   * Reuses an open proposal for the same change at the same version. Otherwise
   * creates one, and supersedes the order's older pending proposals of the
   * same kind: an approver then sees one current proposal per order and
   * change kind, never two conflicting ones. An approved one is not
   * superseded (a person decided it), so while it can still be applied a new
   * proposal of its kind is refused: two approved changes to one order would
   * leave the second to go stale the moment the first is applied.
   */
  private async openProposal(
    order: OrderRecord,
    change: OrderChange,
    plan: Plan,
    operator: Person,
  ): Promise<Result<ProposalView>> {
    const now = this.deps.now();
    for (const candidate of this.deps.store.findOpen(
      order.order_id,
      ProposalStore.changeKey({ change }),
      order.version,
    )) {
      const current = await this.records.expireIfDue(candidate, now);
      if (isOpen(current)) return ok(this.view(current));
    }
    const approved = await this.stillApproved(order.order_id, change.kind);
    if (approved) return fail("conflict", approvedConflict(approved));
    // The cheap count first; only near the cap is it worth reading the orders' versions.
    if (this.deps.store.countOpen(now) >= this.deps.maxOpen) {
      const open = await this.records.actionable(now);
      if (open.length >= this.deps.maxOpen) return fail("conflict", capRefusal(open, this.deps.maxOpen));
    }

    // Validated before anything is written: a proposal that cannot be stored writes nothing at all.
    const secondApprover = secondApproverReason(this.deps.fourEyes, { action: change.action, risk: plan.risk }, order);
    const proposal = newProposal({
      id: newProposalId(),
      order,
      change,
      plan,
      operator,
      now,
      ttlMinutes: this.deps.ttlMinutes,
      secondApprover,
    });
    // Stored, then audited; if the audit write fails the proposal is removed
    // again, so a proposal and its trail exist together or not at all.
    this.deps.store.insert(proposal);
    try {
      const reason = `${proposal.action} proposed (${proposal.risk} risk): ${changeSummary(change)}. ${proposal.rationale}`;
      await this.deps.orders.recordEvent(
        proposalEvent({
          proposal,
          step: "proposed",
          actorKind: "operator",
          actor: operator.name,
          reason,
          at: proposal.created_at,
          stateBefore: orderState(order),
        }),
      );
    } catch (error) {
      this.deps.store.delete(proposal.proposal_id);
      throw error;
    }
    await this.supersedeOlder(proposal, operator);
    return ok(this.view(proposal));
  }

  /**
   * The order's approved proposal of this kind that can still be applied (or is being applied), once brought up to
   * date.
   */
  private async stillApproved(orderId: string, kind: Proposal["kind"]): Promise<Proposal | undefined> {
    const applying = this.deps.store.forOrder(orderId, "applying").find((p) => p.kind === kind);
    if (applying) return applying;
    for (const approved of this.deps.store.forOrder(orderId, "approved")) {
      if (approved.kind !== kind) continue;
      const { proposal } = await this.records.refresh(approved);
      if (proposal.status === "approved") return proposal;
    }
    return undefined;
  }

  private async supersedeOlder(newer: Proposal, operator: Person): Promise<void> {
    for (const older of this.deps.store.forOrder(newer.order_id, "pending_approval")) {
      if (older.proposal_id === newer.proposal_id || older.kind !== newer.kind) continue;
      const superseded = this.records.transition(
        older,
        "superseded",
        `superseded by ${newer.proposal_id}, a newer proposal for the same order`,
        {
          superseded_by: newer.proposal_id,
        },
      );
      if (superseded.status !== "superseded") continue;
      const reason = `replaced by ${newer.proposal_id}: ${changeSummary(newer.change)}`;
      await this.deps.orders.recordEvent(
        proposalEvent({
          proposal: older,
          step: "superseded",
          actorKind: "operator",
          actor: operator.name,
          reason,
          at: newer.created_at,
        }),
      );
    }
  }

  async getProposal(proposalId: string): Promise<Result<ProposalView>> {
    const current = await this.records.current(proposalId);
    return current.ok ? ok(this.view(current.value.proposal)) : current;
  }

  /**
   * Waits up to `timeoutMs` for a person to decide a pending proposal (or for
   * it to expire or go stale), and answers it as it then is. Nothing here can
   * decide: the decision comes only from the approval app, which wakes the
   * wait when it writes.
   */
  async awaitDecision(
    proposalId: string,
    timeoutMs: number,
  ): Promise<Result<{ proposal: ProposalView; waitedMs: number }>> {
    const started = this.deps.now().getTime();
    for (;;) {
      const current = await this.records.current(proposalId);
      if (!current.ok) return current;
      const { proposal } = current.value;
      const now = this.deps.now().getTime();
      const left = Math.min(started + timeoutMs, Date.parse(proposal.expires_at)) - now;
      if (proposal.status !== "pending_approval" || left <= 0)
        return ok({ proposal: this.view(proposal), waitedMs: now - started });
      await this.waiters.wait(proposalId, left);
    }
  }

  /** How many callers (wait_for_approval) are waiting for this proposal's decision right now. */
  waiting(proposalId: string): number {
    return this.waiters.count(proposalId);
  }

  /** For the approval page: the proposal and the order it would change. */
  async review(proposalId: string): Promise<Result<{ proposal: ProposalView; order: OrderRecord | null }>> {
    const current = await this.records.current(proposalId);
    return current.ok ? ok({ proposal: this.view(current.value.proposal), order: current.value.order }) : current;
  }

  /** The sweep the cron trigger runs: see ProposalRecords.expireDue. */
  expireDue(): Promise<number> {
    return this.records.expireDue(this.deps.now());
  }

  /**
   * The open proposals an approver can still act on, newest first. One read
   * of the proposals and one of the orders' versions; nothing is written and
   * nothing waits, so a long list never holds up the account.
   */
  async pending(): Promise<ProposalView[]> {
    return (await this.records.actionable(this.deps.now())).map((p) => this.view(p));
  }

  /** Approve or reject; see ProposalDecisions. */
  decide(proposalId: string, decision: Decision, approver: Approver): Promise<Result<ProposalView>> {
    return this.decisions.decide(proposalId, decision, approver);
  }

  /** Applies an approved proposal exactly once; see ProposalConfirmation. */
  confirm(proposalId: string, operator: string): Promise<Result<ConfirmResult>> {
    return this.confirmation.confirm(proposalId, operator);
  }

  /** The reconciler's check of a proposal left applying, run by the account's alarm. */
  reconcileApply(proposalId: string): Promise<void> {
    return this.confirmation.reconcile(proposalId);
  }
}
