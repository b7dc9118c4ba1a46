/**
 * A proposal's status in words, for the approval app and the MCP Apps cards
 * alike (the rest of the vocabulary is orders/labels.ts). The confirm tools'
 * `approval_required` is the same state as `pending_approval` seen from the
 * agent's side, so it reads the same.
 */
import type { ConfirmResult, ProposalStatus } from "./proposal-schemas";

export const PROPOSAL_STATUS_LABELS: Readonly<Record<ProposalStatus | ConfirmResult["status"], string>> = {
  pending_approval: "Waiting for approval",
  approval_required: "Waiting for approval",
  approved: "Approved, not applied yet",
  applying: "Being applied: waiting for the provider",
  rejected: "Rejected",
  applied: "Applied",
  failed: "Refused by the provider",
  expired: "Expired",
  stale: "Out of date",
  superseded: "Replaced",
};

export function proposalStatusLabel(status: ProposalStatus | ConfirmResult["status"]): string {
  return PROPOSAL_STATUS_LABELS[status];
}
