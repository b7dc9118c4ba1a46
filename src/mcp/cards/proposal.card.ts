import { appCard } from "./card-page";

/**
 * Renders a proposal (propose_resolution, prepare_address_change, get_proposal)
 * or a confirmation answer (confirm_resolution, apply_approved_change), from
 * cards/proposal-card.ts. Its one button asks the host to open the approval
 * page; it cannot approve or apply.
 */
export const proposalCard = appCard({
  name: "proposal-card",
  uri: "ui://order-ops/proposal.html",
  title: "Proposal",
  description:
    "Card for proposals and their confirmation: status, the change, why it went stale, expiry and the before/after rows, with a button that opens the approval page. It cannot approve or apply.",
});
