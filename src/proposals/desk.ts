import type { Approver } from "../config/config";
import { base64url } from "../core/encoding";
import { fail, ok, type AppError, type Result } from "../core/errors";
import { normalizeAddress, sameAddress, type AddressInput } from "../orders/address";
import type { OrderRecord } from "../orders/order-record";
import { diffStates, orderState } from "../orders/order-state";
import { applyChange, planResolution, type OrderChange, type Risk } from "../orders/playbook";
import type { AccountOrders } from "../orders/port";
import { ORDER_NOT_FOUND_MESSAGE, type ApplyOutcome } from "../orders/views";
import { ProposalSchema, type ConfirmResult, type Decision, type Proposal, type ProposalView } from "./schemas";
import { ProposalStore } from "./store";

export interface ProposalDeskDeps {
  readonly store: ProposalStore;
  /** The account's orders; the desk never names an account itself. */
  readonly orders: AccountOrders;
  readonly ttlMinutes: number;
  readonly now: () => Date;
  /** Serializes every state transition of this account's proposals. */
  readonly exclusive: <T>(task: () => Promise<T>) => Promise<T>;
  readonly approvalUrl: (proposalId: string) => string;
}

/** Orders past these states can no longer be re-addressed. */
const ADDRESS_LOCKED_STATUSES = new Set(["shipped", "partially_shipped", "delivered", "cancelled"]);

const ORDER_NOT_FOUND: AppError = { code: "not_found", message: ORDER_NOT_FOUND_MESSAGE };
const PROPOSAL_NOT_FOUND: AppError = { code: "not_found", message: "proposal not found; proposals are only visible to the account that created them" };

function isOpen(proposal: Proposal): boolean {
  return proposal.status === "pending_approval" || proposal.status === "approved";
}

function newProposalId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(15));
  return `prop_${base64url(bytes)}`;
}

/**
 * The proposal lifecycle: propose (inert), approve or reject (application
 * only), confirm (exactly once). Models reach propose, get and confirm through
 * MCP tools; decide is reachable only from the approval app.
 */
export class ProposalDesk {
  constructor(private readonly deps: ProposalDeskDeps) {}

  view(proposal: Proposal): ProposalView {
    return { ...proposal, approval_url: this.deps.approvalUrl(proposal.proposal_id) };
  }

  async proposeResolution(orderId: string, operator: string): Promise<Result<ProposalView>> {
    return this.deps.exclusive(async () => {
      const order = await this.deps.orders.record(orderId);
      if (!order) return fail(ORDER_NOT_FOUND.code, ORDER_NOT_FOUND.message);
      const plan = planResolution(order);
      if (!plan) {
        const state = order.exception ? `its exception is already ${order.exception.state}` : "it has no exception";
        return fail("conflict", `order ${order.order_id} has no active exception (${state}), so there is nothing to resolve`);
      }
      return this.openProposal(order, { kind: "resolution", action: plan.action }, plan, operator);
    });
  }

  async prepareAddressChange(orderId: string, input: AddressInput, operator: string): Promise<Result<ProposalView>> {
    return this.deps.exclusive(async () => {
      const order = await this.deps.orders.record(orderId);
      if (!order) return fail(ORDER_NOT_FOUND.code, ORDER_NOT_FOUND.message);
      if (ADDRESS_LOCKED_STATUSES.has(order.status)) {
        return fail("conflict", `order ${order.order_id} is ${order.status}; its shipping address can no longer change`);
      }
      if (order.evidence?.inventory.allocations.some((a) => a.state === "shipped")) {
        return fail("conflict", `part of order ${order.order_id} has already shipped; its shipping address can no longer change`);
      }
      const address = normalizeAddress(input);
      if (!address.ok) return address;
      if (sameAddress(order.shipping_address, address.value)) {
        return fail("conflict", `order ${order.order_id} already ships to that address; there is nothing to change`);
      }
      const risk: Risk = order.exception?.state === "active" && order.exception.type === "fraud_review" ? "high" : "medium";
      return this.openProposal(
        order,
        { kind: "address_change", action: "change_shipping_address", address: address.value },
        {
          risk,
          rationale: "Ship the order to the corrected address instead of the one on file.",
          evidence: [`order ${order.order_id} is ${order.status} at version ${order.version}`, `the current address is pinned as the "before" value`],
        },
        operator,
      );
    });
  }

  /** Reuses an open proposal for the same change at the same version; otherwise creates one. */
  private async openProposal(
    order: OrderRecord,
    change: OrderChange,
    plan: { risk: Risk; rationale: string; evidence: string[] },
    operator: string,
  ): Promise<Result<ProposalView>> {
    const now = this.deps.now();
    for (const candidate of this.deps.store.findOpen(order.order_id, ProposalStore.changeKey({ change }), order.version)) {
      const reusable = this.expireIfDue(candidate, now);
      if (isOpen(reusable)) return ok(this.view(reusable));
    }

    const after = { ...orderState(applyChange(order, change, now.toISOString())), version: order.version + 1 };
    // Validated before anything is written: a proposal that cannot be stored writes nothing at all.
    const proposal: Proposal = ProposalSchema.parse({
      proposal_id: newProposalId(),
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
      created_by: operator,
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + this.deps.ttlMinutes * 60_000).toISOString(),
      decided_by: null,
      decided_at: null,
      decision_reason: null,
      outcome: null,
    } satisfies Proposal);
    // Stored, then audited; if the audit write fails the proposal is removed
    // again, so a proposal and its trail exist together or not at all.
    this.deps.store.insert(proposal);
    try {
      await this.deps.orders.recordEvent({
      event_id: `${proposal.proposal_id}:proposed`,
      order_id: order.order_id,
      event_type: "proposal_created",
      actor_kind: "operator",
      actor: operator,
      reason: `${proposal.action} proposed (${proposal.risk} risk): ${proposal.rationale}`,
      proposal_id: proposal.proposal_id,
      state_before: orderState(order),
      state_after: null,
      created_at: proposal.created_at,
      });
    } catch (error) {
      this.deps.store.delete(proposal.proposal_id);
      throw error;
    }
    return ok(this.view(proposal));
  }

  /**
   * Expiry and staleness follow from the clock and the order's version; they
   * are derived states, not actions, so they change the stored status without
   * an audit event (and without any write to the order).
   */
  private transition(proposal: Proposal, status: "expired" | "stale"): Proposal {
    const next: Proposal = { ...proposal, status };
    this.deps.store.update(next);
    return next;
  }

  private expireIfDue(proposal: Proposal, now: Date): Proposal {
    if (!isOpen(proposal) || now.getTime() < Date.parse(proposal.expires_at)) return proposal;
    return this.transition(proposal, "expired");
  }

  /**
   * Brings an open proposal up to date with the order. If the order moved on,
   * the proposal was either applied (perhaps by an attempt whose answer never
   * arrived, so ask the store) or overtaken by another change (stale).
   */
  private async refresh(proposal: Proposal): Promise<{ proposal: Proposal; order: OrderRecord | null }> {
    const order = await this.deps.orders.record(proposal.order_id);
    if (!isOpen(proposal)) return { proposal, order };
    if (!order || order.version !== proposal.pinned_version) {
      const outcome = await this.deps.orders.appliedOutcome(proposal.proposal_id);
      if (outcome) return { proposal: this.recordApplied(proposal, outcome), order };
      return { proposal: this.transition(proposal, "stale"), order };
    }
    return { proposal: this.expireIfDue(proposal, this.deps.now()), order };
  }

  private recordApplied(proposal: Proposal, outcome: ApplyOutcome): Proposal {
    const applied: Proposal = { ...proposal, status: "applied", outcome };
    this.deps.store.update(applied);
    return applied;
  }

  private async current(proposalId: string): Promise<Result<{ proposal: Proposal; order: OrderRecord | null }>> {
    const stored = this.deps.store.get(proposalId);
    if (!stored) return fail(PROPOSAL_NOT_FOUND.code, PROPOSAL_NOT_FOUND.message);
    return ok(await this.refresh(stored));
  }

  async getProposal(proposalId: string): Promise<Result<ProposalView>> {
    return this.deps.exclusive(async () => {
      const current = await this.current(proposalId);
      return current.ok ? ok(this.view(current.value.proposal)) : current;
    });
  }

  /** For the approval page: the proposal and the order it would change. */
  async review(proposalId: string): Promise<Result<{ proposal: ProposalView; order: OrderRecord | null }>> {
    return this.deps.exclusive(async () => {
      const current = await this.current(proposalId);
      return current.ok ? ok({ proposal: this.view(current.value.proposal), order: current.value.order }) : current;
    });
  }

  /** Open proposals, after expiring old ones and marking those whose order moved on as stale. */
  async pending(): Promise<ProposalView[]> {
    return this.deps.exclusive(async () => {
      const open: ProposalView[] = [];
      for (const stored of this.deps.store.byStatus(["pending_approval", "approved"])) {
        const { proposal } = await this.refresh(stored);
        if (isOpen(proposal)) open.push(this.view(proposal));
      }
      return open;
    });
  }

  /** Approve or reject. Reachable only from the approval app, with an approver credential. */
  async decide(proposalId: string, decision: Decision, approver: Approver): Promise<Result<ProposalView>> {
    if (approver.account !== this.deps.orders.account) return fail(PROPOSAL_NOT_FOUND.code, PROPOSAL_NOT_FOUND.message);
    return this.deps.exclusive(async () => {
      const current = await this.current(proposalId);
      if (!current.ok) return current;
      const proposal = current.value.proposal;
      const wanted = decision.decision === "approve" ? "approved" : "rejected";
      if (proposal.status === wanted) return ok(this.view(proposal));
      if (proposal.status !== "pending_approval") return fail("conflict", this.refusal(proposal, "decided"));
      const now = this.deps.now().toISOString();
      await this.deps.orders.recordEvent({
        event_id: `${proposal.proposal_id}:${wanted}`,
          order_id: proposal.order_id,
        event_type: `proposal_${wanted}`,
        actor_kind: "approver",
        actor: approver.approver,
        reason: decision.reason,
        proposal_id: proposal.proposal_id,
        state_before: null,
        state_after: null,
        created_at: now,
      });
      const decided: Proposal = { ...proposal, status: wanted, decided_by: approver.approver, decided_at: now, decision_reason: decision.reason };
      this.deps.store.update(decided);
      return ok(this.view(decided));
    });
  }

  private refusal(proposal: Proposal, attempted: "decided" | "applied"): string {
    const id = proposal.proposal_id;
    switch (proposal.status) {
      case "expired":
        return `proposal ${id} expired at ${proposal.expires_at} without being ${attempted === "decided" ? "approved" : "applied"}; nothing was changed. Ask for a new proposal.`;
      case "rejected":
        return `proposal ${id} was rejected by ${proposal.decided_by ?? "an approver"} (${proposal.decision_reason ?? "no reason given"}); it will not be applied. Ask for a new proposal if the situation changed.`;
      case "stale":
        return `proposal ${id} is stale: order ${proposal.order_id} changed after version ${proposal.pinned_version}; nothing was changed. Ask for a new proposal.`;
      case "applied":
        return `proposal ${id} was already applied at ${proposal.outcome?.applied_at ?? "an earlier time"}`;
      case "approved":
        return `proposal ${id} was already approved by ${proposal.decided_by ?? "an approver"}`;
      case "pending_approval":
        return `proposal ${id} is waiting for approval`;
    }
  }

  private confirmResult(proposal: Proposal, status: ConfirmResult["status"], message: string): ConfirmResult {
    return {
      status,
      proposal_id: proposal.proposal_id,
      order_id: proposal.order_id,
      action: proposal.action,
      message,
      approval_url: this.deps.approvalUrl(proposal.proposal_id),
      expires_at: proposal.expires_at,
      outcome: proposal.outcome,
    };
  }

  /**
   * Applies an approved proposal. The first call writes; every later call
   * answers the stored outcome. Unapproved proposals answer approval_required
   * and change nothing.
   */
  async confirm(proposalId: string, operator: string): Promise<Result<ConfirmResult>> {
    return this.deps.exclusive(async () => {
      const current = await this.current(proposalId);
      if (!current.ok) return current;
      const proposal = current.value.proposal;
      switch (proposal.status) {
        case "pending_approval":
          return ok(
            this.confirmResult(
              proposal,
              "approval_required",
              `a human approver must approve this proposal at ${this.deps.approvalUrl(proposal.proposal_id)} before it can be applied; nothing was changed. Ask the user to approve it, then confirm again before ${proposal.expires_at}.`,
            ),
          );
        case "stale":
          return ok(this.confirmResult(proposal, "stale", this.refusal(proposal, "applied")));
        case "expired":
        case "rejected":
          return fail("conflict", this.refusal(proposal, "applied"));
        case "applied":
          return ok(this.appliedResult(proposal));
        case "approved":
          break;
      }
      const result = await this.deps.orders.applyProposal({
        proposal_id: proposal.proposal_id,
          order_id: proposal.order_id,
        pinned_version: proposal.pinned_version,
        change: proposal.change,
        confirmed_by: operator,
        approved_by: proposal.decided_by ?? "unknown approver",
        approval_reason: proposal.decision_reason ?? "",
      });
      switch (result.kind) {
        case "applied":
        case "already_applied":
          return ok(this.appliedResult(this.recordApplied(proposal, result.outcome)));
        case "stale": {
          const stale = this.transition(proposal, "stale");
          return ok(this.confirmResult(stale, "stale", this.refusal(stale, "applied")));
        }
        case "not_found":
          return fail(ORDER_NOT_FOUND.code, ORDER_NOT_FOUND.message);
      }
    });
  }

  private appliedResult(proposal: Proposal): ConfirmResult {
    return this.confirmResult(proposal, "applied", `${proposal.action} was applied to ${proposal.order_id}`);
  }
}
