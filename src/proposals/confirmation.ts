import { fail, ok, type Result } from "../core/errors";
import { ORDER_NOT_FOUND_MESSAGE } from "../orders/tool-outputs";
import type { CallResult } from "../provider/apply-provider";
import { applyKey } from "./apply-key";
import { confirmResult } from "./lifecycle";
import type { ConfirmResult, Proposal, ProviderApply } from "./proposal-schemas";
import type { ProposalServiceDeps } from "./proposal-service-deps";
import { providerRequest, recordStep, withProviderCall } from "./provider-calls";
import type { ProposalRecords } from "./records";
import {
  alreadyAppliedMessage,
  appliedMessage,
  applyingMessage,
  approvalRequired,
  movedOn,
  refusal,
} from "./sentences";

/** The reconciler's checks back off from APPLY_RECONCILE_SECONDS, doubling, up to this. */
const MAX_CHECK_INTERVAL_MS = 60 * 60_000;

type ConfirmationDeps = Pick<
  ProposalServiceDeps,
  "store" | "orders" | "now" | "exclusive" | "approvalUrl" | "provider" | "scheduleCheck"
> & {
  readonly records: ProposalRecords;
};

/**
 * Confirmation: applies an approved proposal exactly once. Without a
 * provider the change is applied here and the answer is certain. With one,
 * `applying` is stored and the reconciler's alarm armed before the provider
 * is called, so whatever happens to the call (an answer, a timeout, this
 * object restarting) the proposal is never lost: the reconciler asks the
 * provider what became of the key and settles it. Every call carries the
 * same key, so the provider makes the change at most once.
 */
export class ProposalConfirmation {
  constructor(private readonly deps: ConfirmationDeps) {}

  private result(proposal: Proposal, status: ConfirmResult["status"], message: string): ConfirmResult {
    return confirmResult(proposal, status, message, this.deps.approvalUrl(proposal.proposal_id));
  }

  /** The first call writes; every later call answers the stored outcome. Unapproved proposals change nothing. */
  confirm(proposalId: string, operator: string): Promise<Result<ConfirmResult>> {
    return this.deps.exclusive(async () => {
      const current = await this.deps.records.current(proposalId);
      if (!current.ok) return current;
      const proposal = current.value.proposal;
      switch (proposal.status) {
        case "pending_approval":
          return ok(
            this.result(
              proposal,
              "approval_required",
              approvalRequired(proposal, this.deps.approvalUrl(proposal.proposal_id)),
            ),
          );
        case "stale":
          return ok(this.result(proposal, "stale", refusal(proposal, "applied")));
        case "failed":
          return ok(this.result(proposal, "failed", refusal(proposal, "applied")));
        case "expired":
        case "rejected":
        case "superseded":
          return fail("conflict", refusal(proposal, "applied"));
        case "applied":
          return ok(this.result(proposal, "applied", alreadyAppliedMessage(proposal)));
        case "applying":
          // The provider is never called from here a second time: the reconciler asks it.
          return ok(await this.stillApplying(proposal, operator));
        case "approved":
          break;
      }
      return this.deps.provider ? this.sendToProvider(proposal, operator) : this.applyHere(proposal, operator);
    });
  }

  /**
   * The reconciler, run by the account's alarm: asks the provider what became
   * of the key and settles the proposal. A key the provider never saw means
   * the change never arrived, so it is sent again, under the same key. A
   * check without an answer schedules the next one, further out, until the
   * configured checks are spent.
   */
  reconcile(proposalId: string): Promise<void> {
    return this.deps.exclusive(async () => {
      const stored = this.deps.store.get(proposalId);
      const call = stored?.provider_apply;
      if (stored?.status !== "applying" || !call || call.next_check_at === null) return;
      if (!this.deps.provider) {
        this.deps.records.transition(
          stored,
          "applying",
          "APPLY_PROVIDER is none now, so no one can ask the provider; configure it again, then confirm to resume the checks",
          {
            provider_apply: { ...call, next_check_at: null },
          },
        );
        return;
      }
      const { provider, config } = this.deps.provider;
      const checksLeft = call.checks_left - 1;
      const done = config.reconcileChecks - checksLeft;
      const later =
        checksLeft > 0
          ? new Date(
              this.deps.now().getTime() + Math.min(config.reconcileSeconds * 1000 * 2 ** done, MAX_CHECK_INTERVAL_MS),
            )
          : null;
      // Counted and re-armed before the call, like the first: a check that never returns still counts, and still has a
      // successor.
      let proposal = withProviderCall(this.deps.records, stored, {
        calls: call.calls + 1,
        checks_left: checksLeft,
        next_check_at: later?.toISOString() ?? null,
      });
      if (later) await this.deps.scheduleCheck(later, proposalId);
      let answer = await provider.outcome(call.key);
      if (answer.kind === "unknown") {
        proposal = withProviderCall(this.deps.records, proposal, { calls: (proposal.provider_apply?.calls ?? 0) + 1 });
        await recordStep(
          this.deps,
          proposal,
          { step: "apply_resent", ordinal: proposal.provider_apply?.calls ?? 1 },
          "system",
          "apply reconciler",
          `the provider has no record of key ${call.key}, so the change never reached it; sent it again with the same key`,
        );
        answer = await provider.apply(providerRequest(this.deps.orders.account, proposal));
      }
      await this.settle(proposal, answer);
    });
  }

  private async sendToProvider(approved: Proposal, operator: string): Promise<Result<ConfirmResult>> {
    const { provider, config } = this.deps.provider ?? { provider: null, config: null };
    if (!provider || !config) throw new Error("sendToProvider needs a provider");
    const now = this.deps.now();
    const firstCheck = new Date(now.getTime() + config.reconcileSeconds * 1000);
    const call: ProviderApply = {
      key: await applyKey(approved),
      confirmed_by: operator,
      requested_at: now.toISOString(),
      calls: 1,
      checks_left: config.reconcileChecks,
      next_check_at: firstCheck.toISOString(),
      provider_reference: null,
    };
    // Stored before anything leaves this object; an expiry noticed meanwhile by a reader wins, and nothing is sent.
    const applying = this.deps.records.transition(approved, "applying", null, { provider_apply: call });
    if (applying.status !== "applying") return fail("conflict", refusal(applying, "applied"));
    await this.deps.scheduleCheck(firstCheck, approved.proposal_id);
    await recordStep(
      this.deps,
      applying,
      { step: "apply_requested" },
      "operator",
      operator,
      `${approved.action} sent to the provider with idempotency key ${call.key}`,
    );
    return ok(await this.settle(applying, await provider.apply(providerRequest(this.deps.orders.account, applying))));
  }

  /** Turns what the provider said (or did not say) into the proposal's state and the confirm answer. */
  private async settle(proposal: Proposal, answer: CallResult): Promise<ConfirmResult> {
    const call = proposal.provider_apply;
    if (!call) throw new Error(`proposal ${proposal.proposal_id} was settled without a provider call`);
    switch (answer.kind) {
      case "applied": {
        const confirmed = withProviderCall(this.deps.records, proposal, {
          provider_reference: answer.reference,
          next_check_at: null,
        });
        await recordStep(
          this.deps,
          confirmed,
          { step: "apply_confirmed" },
          "system",
          "apply provider",
          `the provider made the change (reference ${answer.reference}, key ${call.key})`,
        );
        const applied = await this.applyHere(confirmed, call.confirmed_by);
        if (applied.ok) return applied.value;
        const gone = this.deps.records.transition(
          confirmed,
          "stale",
          `order ${proposal.order_id} no longer exists, but the provider already made the change (reference ${answer.reference}): reconcile it by hand`,
        );
        return this.result(gone, "stale", refusal(gone, "applied"));
      }
      case "refused": {
        const failed = this.deps.records.transition(proposal, "failed", answer.reason, {
          provider_apply: { ...call, next_check_at: null },
        });
        await recordStep(
          this.deps,
          failed,
          { step: "apply_refused" },
          "system",
          "apply provider",
          `the provider refused the change (key ${call.key}): ${answer.reason}; nothing was changed`,
        );
        return this.result(failed, "failed", refusal(failed, "applied"));
      }
      case "unknown":
      case "no_answer": {
        const problem = answer.kind === "no_answer" ? answer.problem : `the provider has no record of key ${call.key}`;
        const stopped =
          call.next_check_at === null
            ? `the provider has not answered after ${call.calls} calls, so the checks stopped`
            : null;
        const unanswered = stopped ? this.deps.records.transition(proposal, "applying", stopped) : proposal;
        const next = call.next_check_at
          ? `; the reconciler asks again at ${call.next_check_at}`
          : `; ${stopped ?? ""}: confirm again to resume, or ask the provider about key ${call.key}`;
        await recordStep(
          this.deps,
          unanswered,
          { step: "apply_unanswered", ordinal: call.calls },
          "system",
          "apply provider",
          `${problem} (call ${call.calls}, key ${call.key}); the change may or may not have been made${next}`,
        );
        return this.result(unanswered, "applying", applyingMessage(unanswered, problem));
      }
    }
  }

  /** Confirm on a proposal already sent: its state, and if the reconciler had stopped, it asks again from now. */
  private async stillApplying(proposal: Proposal, operator: string): Promise<ConfirmResult> {
    const call = proposal.provider_apply;
    if (!call || call.next_check_at !== null || !this.deps.provider)
      return this.result(proposal, "applying", applyingMessage(proposal, null));
    const now = this.deps.now();
    const resumed = this.deps.records.transition(proposal, "applying", null, {
      provider_apply: {
        ...call,
        checks_left: this.deps.provider.config.reconcileChecks,
        next_check_at: now.toISOString(),
      },
    });
    await this.deps.scheduleCheck(now, proposal.proposal_id);
    await recordStep(
      this.deps,
      resumed,
      { step: "checks_resumed", ordinal: call.calls },
      "operator",
      operator,
      `confirmed again after the checks had stopped; the reconciler asks the provider about key ${call.key} again`,
    );
    return this.result(resumed, "applying", applyingMessage(resumed, null));
  }

  /** The change, written here: exactly once, conditional on the pinned version (store/operations.ts). */
  private async applyHere(proposal: Proposal, confirmedBy: string): Promise<Result<ConfirmResult>> {
    const result = await this.deps.orders.applyProposal({
      proposal_id: proposal.proposal_id,
      order_id: proposal.order_id,
      pinned_version: proposal.pinned_version,
      change: proposal.change,
      confirmed_by: confirmedBy,
      approved_by: proposal.decided_by ?? "unknown approver",
      approval_reason: proposal.decision_reason ?? "",
    });
    const madeElsewhere = proposal.provider_apply?.provider_reference;
    switch (result.kind) {
      case "applied":
      case "already_applied": {
        // already_applied: an earlier apply landed but its answer never reached us.
        const done = this.deps.records.recordApplied(proposal, result.outcome);
        return ok(
          this.result(done, "applied", result.kind === "applied" ? appliedMessage(done) : alreadyAppliedMessage(done)),
        );
      }
      case "stale": {
        const why =
          movedOn(proposal, result.current_version) +
          (madeElsewhere
            ? `, but the provider already made the change (reference ${madeElsewhere}): reconcile the order by hand`
            : "");
        const stale = this.deps.records.transition(proposal, "stale", why);
        return ok(this.result(stale, "stale", refusal(stale, "applied")));
      }
      case "not_found":
        return fail("not_found", ORDER_NOT_FOUND_MESSAGE);
    }
  }
}
