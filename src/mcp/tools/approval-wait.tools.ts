import { z } from "zod/v4";
import { ok } from "../../core/errors";
import { CHANGE_KINDS } from "../../orders/change-kinds";
import { PROPOSAL_OUTLINE, type ProposalView, ProposalViewSchema } from "../../proposals/proposal-schemas";
import { approvalsSoFar } from "../../proposals/sentences";
import { proposalCard } from "../cards/proposal.card";
import { ProposalIdParam } from "./params";
import { type AccountTool, defineTool } from "./tool-registration";

/**
 * Waiting for the person instead of polling. The decision still comes only
 * from the approval app: this tool holds the call until it arrives (or a
 * bounded timeout), and where the client can show a page (URL elicitation
 * at 2026-07-28) it first asks the person to open the approval page.
 */

/** Under the 60 s most MCP clients allow a request, with room for the answer. */
export const MAX_WAIT_SECONDS = 50;

export const WaitResultSchema = ProposalViewSchema.extend({
  decided: z
    .boolean()
    .describe(
      "false while the proposal still waits for a person; true once it was approved, rejected, applied, or can no longer be approved",
    ),
  waited_seconds: z.number().describe("How long this call waited"),
  next_step: z.string().describe("What to do now, in one sentence"),
});

export function nextStep(proposal: ProposalView): string {
  switch (proposal.status) {
    case "pending_approval": {
      const partly = approvalsSoFar(proposal);
      if (partly) {
        return `Still waiting: ${partly}. Call wait_for_approval again, or ask them to open ${proposal.approval_url}. Nothing can approve it from here.`;
      }
      return `Still waiting for a person: call wait_for_approval again, or ask them to open ${proposal.approval_url}. Nothing can approve it from here.`;
    }
    case "approved":
      return `A person approved it: call ${CHANGE_KINDS[proposal.kind].applyTool.name} with this proposal_id to apply it exactly once.`;
    case "applying":
      return "It is being applied: the provider has not confirmed it yet, and the server settles it by itself. Call get_proposal later to see the outcome; do not propose it again.";
    case "applied":
      return "It has been applied; its outcome is in this answer. Nothing more to do.";
    case "failed":
      return `The provider refused it (${proposal.status_reason ?? "no reason given"}); nothing was changed. Propose again only if something has changed.`;
    case "rejected":
      return `A person rejected it (${proposal.decision_reason ?? "no reason given"}): do not apply it; propose again only if something has changed.`;
    case "expired":
      return "It expired before anyone decided; propose again if the change is still needed.";
    case "stale":
      return "The order changed after it was proposed, so it can no longer be applied; propose again against the order as it is now.";
    case "superseded":
      return `A newer proposal (${proposal.superseded_by ?? "for the same order"}) replaced it: wait for that one instead.`;
  }
}

/** A pending proposal's wait, in words, for a task's status. */
export function approvalProgress(proposal: ProposalView): string {
  const partly = approvalsSoFar(proposal);
  return `waiting for a person to decide proposal ${proposal.proposal_id} (${proposal.action} for ${proposal.order_id}) in the approval app${partly ? `: ${partly}` : ""}; open ${proposal.approval_url}`;
}

export const waitForApproval = defineTool({
  name: "wait_for_approval",
  scope: "orders:read",
  title: "Wait for a person to decide a proposal",
  description: `Waits, up to timeout_seconds, until a person decides the proposal in the approval application (or it expires), and answers it with decided and next_step; it approves nothing. Where your client opens links, it first asks the user to open the approval page.`,
  input: z.object({
    proposal_id: ProposalIdParam,
    timeout_seconds: z
      .number()
      .int()
      .min(1)
      .max(MAX_WAIT_SECONDS)
      .default(30)
      .describe(`Seconds to wait, 1-${MAX_WAIT_SECONDS} (default 30)`),
  }),
  output: WaitResultSchema,
  // get_proposal's listing outlines the whole proposal.
  outlineFields: [...PROPOSAL_OUTLINE, "decided", "waited_seconds", "next_step"],
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  ui: proposalCard,
  handler: async ({ proposal_id, timeout_seconds }, context, { openUrl }) => {
    if (openUrl && !openUrl.answered) {
      const current = await context.agent.getProposal(proposal_id);
      if (!current.ok) return current;
      const proposal = current.value;
      if (proposal.status === "pending_approval") {
        return openUrl.ask(
          proposal.approval_url,
          `Please approve or reject in the approval app: ${proposal.action} for ${proposal.order_id} (${proposal.change_summary}). Come back here when you have decided.`,
        );
      }
    }
    const waited = await context.agent.waitForDecision(proposal_id, timeout_seconds * 1000);
    if (!waited.ok) return waited;
    const { proposal, waitedMs } = waited.value;
    return ok({
      ...proposal,
      decided: proposal.status !== "pending_approval",
      waited_seconds: Math.round(waitedMs / 100) / 10,
      next_step: nextStep(proposal),
    });
  },
  // As a task, no bounded wait: the task completes when a person decides (../task-methods.ts asks for the page).
  async task({ proposal_id }, context) {
    const started = await context.agent.startApprovalTask(proposal_id);
    if (!started.ok) return started;
    return ok({ task: started.value.task, statusMessage: approvalProgress(started.value.proposal) });
  },
});

export const approvalWaitTools: readonly AccountTool[] = [waitForApproval];
