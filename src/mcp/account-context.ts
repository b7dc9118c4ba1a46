import type { BatchRecord } from "../account/batch-history";
import type { ProposalDesk } from "../proposals/desk";
import type { Config } from "../config";
import type { AuditLog, ExceptionSummary, OrderDetails, OrderStatus, SimulatedFailure } from "../orders/views";
import type { SyntheticTraffic } from "../synth/synthetic-traffic";

/** The account's orders, already scoped: no method takes an account. */
export interface AccountOrders {
  status(orderId: string): Promise<OrderStatus | null>;
  details(orderId: string): Promise<OrderDetails | null>;
  exceptions(): Promise<ExceptionSummary[]>;
  auditLog(orderId: string): Promise<AuditLog | null>;
  simulateFailure(): Promise<SimulatedFailure>;
}

/**
 * Everything a tool handler may use, resolved before any tool runs: the account
 * and operator come from the bearer token, never from tool arguments.
 */
export interface AccountToolContext {
  readonly account: string;
  readonly operator: string;
  readonly config: Config;
  readonly synthetic: SyntheticTraffic;
  readonly batchHistory: () => BatchRecord[];
  readonly orders: AccountOrders;
  readonly proposals: ProposalDesk;
}
