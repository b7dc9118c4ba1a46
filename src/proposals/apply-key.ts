import { sha256Hex } from "../core/encoding";
import type { Proposal } from "./proposal-schemas";

/**
 * The idempotency key of a proposal's change at the provider: the proposal,
 * and a digest of exactly what was approved (the order, its pinned version,
 * the change). It is computed once, stored with the proposal, and sent on
 * every call and retry, so the provider can make the change at most once;
 * a different change (a new proposal) can never share it.
 */
export async function applyKey(
  proposal: Pick<Proposal, "proposal_id" | "order_id" | "pinned_version" | "change">,
): Promise<string> {
  const approved = JSON.stringify({
    order_id: proposal.order_id,
    pinned_version: proposal.pinned_version,
    change: proposal.change,
  });
  return `${proposal.proposal_id}.${(await sha256Hex(approved)).slice(0, 32)}`;
}
