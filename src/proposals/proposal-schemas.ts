import { z } from "zod/v4";
import { RiskSchema } from "../core/risk";
import { ChangeActionSchema, ChangeKindSchema, OrderChangeSchema } from "../orders/change-kinds";
import { FieldChangeSchema } from "../orders/order-state";
import { ApplyOutcomeSchema } from "../orders/tool-outputs";

/**
 * Proposal states. Only an approver moves pending_approval to approved or
 * rejected; a newer proposal of the same kind for the same order moves a
 * pending one to superseded. With an external provider configured, confirming
 * moves approved to applying first, and the provider's answer (now, or the
 * reconciler's later) to applied or failed: applying is never left for
 * anything else, since the change may already have been made.
 */
export const ProposalStatusSchema = z.enum([
  "pending_approval",
  "approved",
  "applying",
  "rejected",
  "applied",
  "failed",
  "expired",
  "stale",
  "superseded",
]);
export type ProposalStatus = z.infer<typeof ProposalStatusSchema>;

/** How far the external provider's call has come (APPLY_PROVIDER other than none). */
export const ProviderApplySchema = z.object({
  key: z
    .string()
    .describe("The idempotency key every call about this change carries: the provider makes the change at most once"),
  confirmed_by: z.string(),
  requested_at: z.string(),
  calls: z
    .number()
    .int()
    .min(0)
    .describe("Calls made to the provider so far, the first apply and the reconciler's questions"),
  checks_left: z
    .number()
    .int()
    .min(0)
    .describe("How many more times the reconciler asks before it stops and leaves it to a person"),
  next_check_at: z
    .string()
    .nullable()
    .describe("When the reconciler asks the provider next; null when no check is scheduled"),
  provider_reference: z
    .string()
    .nullable()
    .describe("The provider's reference for the change, once it answered that it made it"),
});
export type ProviderApply = z.infer<typeof ProviderApplySchema>;

/** A proposal as stored in the account's AccountAgent. */
export const ProposalSchema = z.object({
  proposal_id: z.string(),
  order_id: z.string(),
  kind: ChangeKindSchema,
  action: ChangeActionSchema.describe("Chosen by the server's allowlisted playbook, never by the caller"),
  change: OrderChangeSchema.describe(
    "The exact change pinned by this proposal: the action, and for an address change the normalized address",
  ),
  pinned_version: z
    .number()
    .int()
    .describe("The order version this proposal applies to; if the order changes first, the proposal goes stale"),
  status: ProposalStatusSchema,
  risk: RiskSchema,
  rationale: z.string(),
  evidence: z.array(z.string()),
  expected_changes: z.array(FieldChangeSchema).describe("Each field the change will touch, before and after"),
  created_by: z.string(),
  // Added with identities; proposals stored before them read as null and their proposer is known by name.
  created_by_id: z.string().nullable().default(null).describe("The proposer's identity"),
  created_at: z.string(),
  expires_at: z.string(),
  decided_by: z.string().nullable(),
  decided_at: z.string().nullable(),
  decision_reason: z.string().nullable(),
  outcome: ApplyOutcomeSchema.nullable().describe("Set once the change has been applied"),
  // Added after the first release; stored proposals without them read as null.
  status_reason: z
    .string()
    .nullable()
    .default(null)
    .describe("Why the proposal is stale, expired or superseded; null otherwise"),
  superseded_by: z
    .string()
    .nullable()
    .default(null)
    .describe("The newer proposal that replaced this one, when superseded"),
  approvals_required: z
    .number()
    .int()
    .min(1)
    .max(2)
    .default(1)
    .describe("How many distinct approvers must approve before it can be applied (2 under four eyes)"),
  approvals: z
    .array(
      z.object({
        approver: z.string(),
        // Added with identities; approvals stored before them read as null and are compared by name.
        approver_id: z.string().nullable().default(null).describe("The approver's identity"),
        at: z.string(),
        reason: z.string(),
      }),
    )
    .default([])
    .describe("Who has approved so far, oldest first"),
  second_approver_reason: z
    .string()
    .nullable()
    .default(null)
    .describe("Why this proposal needs a second approver; null when one is enough"),
  provider_apply: ProviderApplySchema.nullable()
    .default(null)
    .describe("The call to the external provider, once the proposal was confirmed with one configured; null otherwise"),
});
export type Proposal = z.infer<typeof ProposalSchema>;

/** What tools and the approval API show of a proposal: all of it (including the pinned change) plus its link. */
export const ProposalViewSchema = ProposalSchema.extend({
  approval_url: z.string().describe("Where a human approver reviews and approves or rejects this proposal"),
  change_summary: z
    .string()
    .describe("The change in one line, e.g. the new address; tells two proposals for one order apart"),
});
export type ProposalView = z.infer<typeof ProposalViewSchema>;

/** The fields that identify a proposal, for listings that answer one but leave its whole outline to get_proposal. */
export const PROPOSAL_OUTLINE = ["proposal_id", "order_id", "status", "approval_url", "expires_at"] as const;

/** What the apply tools (one per name the change kinds give, e.g. confirm_resolution) answer. */
export const ConfirmResultSchema = z.object({
  status: z.enum(["approval_required", "applying", "applied", "failed", "stale"]),
  proposal_id: z.string(),
  order_id: z.string(),
  action: ChangeActionSchema,
  message: z.string(),
  approval_url: z.string(),
  expires_at: z.string(),
  outcome: ApplyOutcomeSchema.nullable().describe("What was applied; identical on every later call"),
});
export type ConfirmResult = z.infer<typeof ConfirmResultSchema>;
