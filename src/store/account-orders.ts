import type { AccountAuditEvent } from "../orders/audit-event";
import type { AuditPage } from "../orders/audit-page";
import type { OrderRecord } from "../orders/order-record";
import type { AccountOrders, ApplyCommand, ApplyResult } from "../orders/port";
import type {
  ApplyOutcome,
  AuditLog,
  ExceptionSummary,
  OrderDetails,
  OrderStatus,
  SimulatedFailure,
} from "../orders/tool-outputs";
import { readAuditLog } from "./audit-events";
import type { D1Queries } from "./d1-queries";
import { appliedOutcome, applyProposalChange, listActiveExceptions, readOrderDetails } from "./operations";
import { readOrderRecord, readOrderStatus, readOrderVersions } from "./order-rows";
import { NO_OUTBOX, type OutboxWriter, recordAuditEventWithOutbox } from "./outbox";
import type { AccountReadSession } from "./read-session";
import { statementsOf } from "./read-session";
import { simulateFailure } from "./simulated-orders";

/**
 * The orders port on D1, scoped to one account: the one place an account id
 * is attached to order queries. Every statement filters by it, so another
 * account's order reads exactly like a missing one. Its statements go to the
 * database itself (the primary), as in the account's object, or through a
 * request's read session (read-session.ts), as in the Worker.
 */
export class D1AccountOrders implements AccountOrders {
  constructor(
    private readonly database: D1Database | AccountReadSession,
    readonly account: string,
    private readonly now: () => Date = () => new Date(),
    /** Told after every write to the audit trail, so the writer can have it sealed. */
    private readonly afterTrailWrite: () => void = () => undefined,
    /** Adds the webhook events a proposal change announces to the change's own batch. */
    private readonly outbox: OutboxWriter = NO_OUTBOX,
  ) {}

  private db(): Promise<D1Queries> {
    return statementsOf(this.database);
  }

  async status(orderId: string): Promise<OrderStatus | null> {
    return (await readOrderStatus(await this.db(), this.account, orderId)) ?? null;
  }

  async record(orderId: string): Promise<OrderRecord | null> {
    return (await readOrderRecord(await this.db(), this.account, orderId)) ?? null;
  }

  async versions(orderIds: readonly string[]): Promise<ReadonlyMap<string, number>> {
    if (orderIds.length === 0) return new Map();
    return readOrderVersions(await this.db(), this.account, orderIds);
  }

  async details(orderId: string): Promise<OrderDetails | null> {
    return (await readOrderDetails(await this.db(), this.account, orderId, this.now())) ?? null;
  }

  async exceptions(): Promise<ExceptionSummary[]> {
    return listActiveExceptions(await this.db(), this.account, this.now());
  }

  async auditLog(orderId: string, page: AuditPage): Promise<AuditLog | null> {
    return (await readAuditLog(await this.db(), this.account, orderId, page)) ?? null;
  }

  async recordEvent(event: AccountAuditEvent): Promise<void> {
    await recordAuditEventWithOutbox(await this.db(), { ...event, account: this.account }, this.outbox);
    this.afterTrailWrite();
  }

  async applyProposal(command: ApplyCommand): Promise<ApplyResult> {
    const result = await applyProposalChange(await this.db(), this.account, command, this.now(), this.outbox);
    if (result.kind === "applied") this.afterTrailWrite();
    return result;
  }

  async appliedOutcome(proposalId: string): Promise<ApplyOutcome | null> {
    return appliedOutcome(await this.db(), this.account, proposalId);
  }

  async simulateFailure(actor: string): Promise<SimulatedFailure> {
    const simulated = await simulateFailure(await this.db(), this.account, actor, this.now());
    this.afterTrailWrite();
    return simulated;
  }
}
