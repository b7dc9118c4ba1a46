import { fail, ok, type Result } from "../core/errors";
import type { OrderRecord } from "../orders/order-record";
import type { AccountOrders } from "../orders/port";
import type { ApplyOutcome } from "../orders/tool-outputs";
import { isDue, isOpen, proposalEvent } from "./lifecycle";
import type { Proposal, ProposalStatus } from "./proposal-schemas";
import type { ProposalStore } from "./proposal-store";
import { movedOn } from "./sentences";

export const PROPOSAL_NOT_FOUND_MESSAGE =
  "proposal not found; proposals are only visible to the account that created them";

interface RecordsDeps {
  readonly store: ProposalStore;
  readonly orders: AccountOrders;
  readonly now: () => Date;
}

/**
 * Proposals as they stand: read from the store and brought up to date with
 * their order and the clock. The transitions no one decides (expiry,
 * staleness, a late-seen apply) are written here with a compare-and-set on
 * the status, so a reader never overwrites a decision made meanwhile and
 * needs no place in the account's queue.
 */
export class ProposalRecords {
  constructor(private readonly deps: RecordsDeps) {}

  /**
   * A transition no one decides: expiry, staleness, superseding. Written only
   * if the proposal is still in the state it was read in; otherwise the
   * stored proposal (changed meanwhile) is the answer.
   */
  transition(
    proposal: Proposal,
    status: ProposalStatus,
    reason: string | null,
    extra: Partial<Proposal> = {},
  ): Proposal {
    const next: Proposal = { ...proposal, ...extra, status, status_reason: reason };
    if (this.deps.store.update(next, proposal.status)) return next;
    return this.deps.store.get(proposal.proposal_id) ?? proposal;
  }

  /** An expiry is a step of the trail too (so approvers hear of it), written once however many readers notice it. */
  async expireIfDue(proposal: Proposal, now: Date): Promise<Proposal> {
    if (!isOpen(proposal) || !isDue(proposal, now)) return proposal;
    const expired = this.transition(proposal, "expired", `the approval window closed at ${proposal.expires_at}`);
    if (expired.status === "expired") {
      const event = proposalEvent({
        proposal,
        step: "expired",
        actorKind: "system",
        actor: "approval window",
        reason: expired.status_reason ?? "",
        at: now.toISOString(),
      });
      await this.deps.orders.recordEvent(event);
    }
    return expired;
  }

  /**
   * Brings an open proposal up to date with the order. If the order moved on,
   * the proposal was either applied (perhaps by an attempt whose answer never
   * arrived, so ask the store) or overtaken by another change (stale).
   */
  async refresh(proposal: Proposal): Promise<{ proposal: Proposal; order: OrderRecord | null }> {
    const order = await this.deps.orders.record(proposal.order_id);
    if (!isOpen(proposal)) return { proposal, order };
    if (!order || order.version !== proposal.pinned_version) {
      const outcome = await this.deps.orders.appliedOutcome(proposal.proposal_id);
      if (outcome) return { proposal: this.recordApplied(proposal, outcome), order };
      const why = order ? movedOn(proposal, order.version) : `order ${proposal.order_id} no longer exists`;
      return { proposal: this.transition(proposal, "stale", why), order };
    }
    return { proposal: await this.expireIfDue(proposal, this.deps.now()), order };
  }

  recordApplied(proposal: Proposal, outcome: ApplyOutcome): Proposal {
    return this.transition(proposal, "applied", null, { outcome });
  }

  async current(proposalId: string): Promise<Result<{ proposal: Proposal; order: OrderRecord | null }>> {
    const stored = this.deps.store.get(proposalId);
    if (!stored) return fail("not_found", PROPOSAL_NOT_FOUND_MESSAGE);
    return ok(await this.refresh(stored));
  }

  /**
   * Expires every open proposal whose window has closed, so approvers hear of
   * it (proposal.expired) when it happens rather than when someone next looks.
   * Answers how many it expired.
   */
  async expireDue(now: Date): Promise<number> {
    const due = this.deps.store.byStatus(["pending_approval", "approved"]).filter((p) => isDue(p, now));
    const expired = await Promise.all(due.map((p) => this.expireIfDue(p, now)));
    return expired.filter((p) => p.status === "expired").length;
  }

  /**
   * Open, in time, and pinned to the order's current version. Proposals whose
   * order has moved on are stale even before anyone reads them, so neither
   * the list nor the cap counts them.
   */
  async actionable(now: Date): Promise<Proposal[]> {
    const open = this.deps.store.byStatus(["pending_approval", "approved"]).filter((p) => !isDue(p, now));
    const versions = await this.deps.orders.versions([...new Set(open.map((p) => p.order_id))]);
    return open.filter((p) => versions.get(p.order_id) === p.pinned_version);
  }
}
