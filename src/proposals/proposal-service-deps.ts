import type { FourEyesRule } from "../config/four-eyes";
import type { AccountOrders } from "../orders/port";
import type { ProviderSetup } from "../provider/apply-provider";
import type { ProposalStore } from "./proposal-store";

/** What the proposal service is given by the account it serves; confirmation takes a part of it. */
export interface ProposalServiceDeps {
  readonly store: ProposalStore;
  /** The account's orders; the proposal service never names an account itself. */
  readonly orders: AccountOrders;
  readonly ttlMinutes: number;
  /** How many proposals may be open at once in the account. */
  readonly maxOpen: number;
  readonly now: () => Date;
  /** Serializes the transitions that must not interleave: proposing, deciding, confirming. */
  readonly exclusive: <T>(task: () => Promise<T>) => Promise<T>;
  readonly approvalUrl: (proposalId: string) => string;
  /** Which proposals need two distinct approvers. */
  readonly fourEyes: FourEyesRule;
  /** The external provider an approved change goes to first; null: none (APPLY_PROVIDER=none). */
  readonly provider: ProviderSetup;
  /** Sets the account's alarm for the reconciler's next check of a proposal left applying. */
  readonly scheduleCheck: (at: Date, proposalId: string) => Promise<void>;
}
