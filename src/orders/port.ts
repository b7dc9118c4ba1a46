import type { AccountAuditEvent } from "./audit-event";
import type { AuditPage } from "./audit-page";
import type { OrderChange } from "./change-kinds";
import type { OrderRecord } from "./order-record";
import type {
  ApplyOutcome,
  AuditLog,
  ExceptionSummary,
  OrderDetails,
  OrderStatus,
  SimulatedFailure,
} from "./tool-outputs";

/**
 * The orders port: everything the account's tools and its proposal service need
 * from the order store, already scoped to one account. No method takes an
 * account, so no caller can ask for another account's orders; an order of
 * another account answers exactly like an unknown one (null).
 */
export interface AccountOrders {
  readonly account: string;
  status(orderId: string): Promise<OrderStatus | null>;
  record(orderId: string): Promise<OrderRecord | null>;
  /** The current version of each of these orders that exists in the account, in one read. */
  versions(orderIds: readonly string[]): Promise<ReadonlyMap<string, number>>;
  details(orderId: string): Promise<OrderDetails | null>;
  exceptions(): Promise<ExceptionSummary[]>;
  /** One page of the order's audit log, oldest first. */
  auditLog(orderId: string, page: AuditPage): Promise<AuditLog | null>;
  /** Idempotent by event id: recording the same lifecycle event twice keeps one row. */
  recordEvent(event: AccountAuditEvent): Promise<void>;
  /** Applies a pinned change exactly once; see ApplyResult. */
  applyProposal(command: ApplyCommand): Promise<ApplyResult>;
  /** The stored outcome if this proposal was applied, even if the caller never heard back. */
  appliedOutcome(proposalId: string): Promise<ApplyOutcome | null>;
  simulateFailure(actor: string): Promise<SimulatedFailure>;
}

export interface ApplyCommand {
  readonly proposal_id: string;
  readonly order_id: string;
  readonly pinned_version: number;
  readonly change: OrderChange;
  readonly confirmed_by: string;
  readonly approved_by: string;
  readonly approval_reason: string;
}

export type ApplyResult =
  | { readonly kind: "applied" | "already_applied"; readonly outcome: ApplyOutcome }
  | { readonly kind: "stale"; readonly current_version: number }
  | { readonly kind: "not_found" };
