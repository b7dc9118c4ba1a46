/**
 * The proposal service on its own: a fake orders port in memory, a clock the test
 * moves, and the real proposal table in a Durable Object's SQLite (each test
 * gets an object of its own, so nothing leaks between tests).
 */

import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { getAgentByName } from "agents";
import type { FourEyesRule } from "../../src/config/four-eyes";
import type { Person } from "../../src/core/person";
import type { AccountAuditEvent } from "../../src/orders/audit-event";
import type { OrderRecord } from "../../src/orders/order-record";
import type { AccountOrders, ApplyCommand, ApplyResult } from "../../src/orders/port";
import type { ApplyOutcome } from "../../src/orders/tool-outputs";
import { ProposalService } from "../../src/proposals/proposal-service";
import { ProposalStore } from "../../src/proposals/proposal-store";
import type { ProviderSetup } from "../../src/provider/apply-provider";
import { DEFAULT_ADDRESS } from "./fresh-orders";
import { exception, order as orderRecord } from "./order-records";

export const START = Date.parse("2026-12-01T09:00:00.000Z");
export const TTL_MINUTES = 15;
export const APPROVER = { account: "acme", id: "avery", approver: "Avery" };

/** An operator as the proposal service knows them: an identity and the name the audit trail shows. */
export function person(name: string, id = name.toLowerCase().replace(/[^a-z0-9]+/g, "-")): Person {
  return { id, name };
}

/** An order the proposal service is given: on hold for fraud review, worth $66.00, without evidence. */
export function order(orderId: string, overrides: Partial<OrderRecord> = {}): OrderRecord {
  return orderRecord({
    order_id: orderId,
    customer_id: "CUST-0001",
    channel: "web",
    status: "on_hold",
    version: 1,
    lines: [{ sku: "SKU-2240", quantity: 1, unit_price_cents: 6600 }],
    shipping_address: DEFAULT_ADDRESS,
    evidence: null,
    exception: {
      ...exception("fraud_review"),
      priority: "P1",
      team: "Risk",
      opened_at: new Date(START).toISOString(),
      sla_minutes: 30,
      summary: "risk",
    },
    created_at: new Date(START - 60_000).toISOString(),
    updated_at: new Date(START - 60_000).toISOString(),
    ...overrides,
  });
}

/** The orders port in memory: enough of the D1 store's behaviour for the service. */
export class FakeOrders implements AccountOrders {
  readonly account = "acme";
  readonly orders = new Map<string, OrderRecord>();
  readonly events: AccountAuditEvent[] = [];
  readonly applied = new Map<string, ApplyOutcome>();
  versionReads = 0;

  add(record: OrderRecord): void {
    this.orders.set(record.order_id, record);
  }

  /** Another writer changed the order: its version moves on. */
  bump(orderId: string): void {
    const current = this.orders.get(orderId);
    if (current) this.orders.set(orderId, { ...current, version: current.version + 1 });
  }

  async record(orderId: string) {
    return this.orders.get(orderId) ?? null;
  }
  async versions(orderIds: readonly string[]) {
    this.versionReads++;
    return new Map(
      orderIds.flatMap((id) => (this.orders.has(id) ? [[id, this.orders.get(id)?.version ?? 0] as const] : [])),
    );
  }
  async recordEvent(event: AccountAuditEvent) {
    this.events.push(event);
  }
  async applyProposal(command: ApplyCommand): Promise<ApplyResult> {
    const prior = this.applied.get(command.proposal_id);
    if (prior) return { kind: "already_applied", outcome: prior };
    const current = this.orders.get(command.order_id);
    if (!current) return { kind: "not_found" };
    if (current.version !== command.pinned_version) return { kind: "stale", current_version: current.version };
    const outcome: ApplyOutcome = {
      proposal_id: command.proposal_id,
      order_id: command.order_id,
      action: command.change.action,
      applied_at: new Date(START).toISOString(),
      applied_by: command.confirmed_by,
      approved_by: command.approved_by,
      order_version_before: current.version,
      order_version_after: current.version + 1,
      changes: [],
    };
    this.applied.set(command.proposal_id, outcome);
    this.bump(command.order_id);
    return { kind: "applied", outcome };
  }
  async appliedOutcome(proposalId: string) {
    return this.applied.get(proposalId) ?? null;
  }
  status(): never {
    throw new Error("the proposal service does not read statuses");
  }
  details(): never {
    throw new Error("the proposal service does not read details");
  }
  exceptions(): never {
    throw new Error("the proposal service does not list exceptions");
  }
  auditLog(): never {
    throw new Error("the proposal service does not read audit logs");
  }
  simulateFailure(): never {
    throw new Error("the proposal service does not simulate");
  }
}

export interface Harness {
  readonly service: ProposalService;
  readonly orders: FakeOrders;
  readonly store: ProposalStore;
  /** Moves the service's clock forward. */
  advance(minutes: number): void;
  /** How many tasks went through the account's queue. */
  queued(): number;
  /** The reconciler's checks the service asked the account's alarm for, in order. */
  readonly checks: readonly ScheduledCheck[];
}

export interface ScheduledCheck {
  readonly at: string;
  readonly proposalId: string;
}

export async function withProposalService<R>(
  body: (harness: Harness) => Promise<R>,
  options: { maxOpen?: number; fourEyes?: FourEyesRule; provider?: ProviderSetup } = {},
): Promise<R> {
  const stub = await getAgentByName(env.ACCOUNT_AGENT, `proposals-unit-${crypto.randomUUID()}`);
  return runInDurableObject(stub, async (_instance, state) => {
    let now = START;
    let queued = 0;
    const checks: ScheduledCheck[] = [];
    const orders = new FakeOrders();
    const store = new ProposalStore(state.storage.sql);
    const service = new ProposalService({
      store,
      orders,
      ttlMinutes: TTL_MINUTES,
      maxOpen: options.maxOpen ?? 50,
      now: () => new Date(now),
      exclusive: (task) => {
        queued++;
        return task();
      },
      approvalUrl: (id) => `https://ops.example.com/approvals/${id}`,
      fourEyes: options.fourEyes ?? { overCents: null, risk: null },
      provider: options.provider ?? null,
      scheduleCheck: async (at, proposalId) => void checks.push({ at: at.toISOString(), proposalId }),
    });
    return body({
      service,
      orders,
      store,
      advance: (minutes) => (now += minutes * 60_000),
      queued: () => queued,
      checks,
    });
  });
}

export function address(line1: string) {
  return { ...DEFAULT_ADDRESS, line1, line2: null };
}
