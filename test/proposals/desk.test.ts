import { getAgentByName } from "agents";
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Result } from "../../src/core/errors";
import type { AccountAuditEvent } from "../../src/orders/audit-event";
import type { OrderRecord } from "../../src/orders/order-record";
import type { AccountOrders, ApplyCommand, ApplyResult } from "../../src/orders/port";
import type { ApplyOutcome } from "../../src/orders/views";
import { ProposalDesk } from "../../src/proposals/desk";
import type { ProposalView } from "../../src/proposals/schemas";
import { ProposalStore } from "../../src/proposals/store";
import { DEFAULT_ADDRESS } from "../helpers/fresh-orders";

// The proposal desk on its own: a fake orders port in memory, a clock the test
// moves, and the real proposal table in a Durable Object's SQLite (each test
// gets an object of its own, so nothing leaks between tests).

const START = Date.parse("2026-12-01T09:00:00.000Z");
const TTL_MINUTES = 15;
const APPROVER = { account: "acme", approver: "Avery" };

function order(orderId: string, overrides: Partial<OrderRecord> = {}): OrderRecord {
  return {
    order_id: orderId,
    account: "acme",
    source: "operations",
    customer_id: "CUST-0001",
    channel: "web",
    currency: "USD",
    total_cents: 6600,
    status: "on_hold",
    version: 1,
    lines: [{ sku: "SKU-2240", quantity: 1, unit_price_cents: 6600 }],
    shipping_address: DEFAULT_ADDRESS,
    evidence: null,
    exception: { type: "fraud_review", state: "active", priority: "P1", team: "Risk", opened_at: new Date(START).toISOString(), sla_minutes: 30, summary: "risk" },
    created_at: new Date(START - 60_000).toISOString(),
    updated_at: new Date(START - 60_000).toISOString(),
    ...overrides,
  };
}

/** The orders port in memory: enough of the D1 store's behaviour for the desk. */
class FakeOrders implements AccountOrders {
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
    return new Map(orderIds.flatMap((id) => (this.orders.has(id) ? [[id, this.orders.get(id)?.version ?? 0] as const] : [])));
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
    throw new Error("the desk does not read statuses");
  }
  details(): never {
    throw new Error("the desk does not read details");
  }
  exceptions(): never {
    throw new Error("the desk does not list exceptions");
  }
  auditLog(): never {
    throw new Error("the desk does not read audit logs");
  }
  simulateFailure(): never {
    throw new Error("the desk does not simulate");
  }
}

interface Harness {
  readonly desk: ProposalDesk;
  readonly orders: FakeOrders;
  readonly store: ProposalStore;
  /** Moves the desk's clock forward. */
  advance(minutes: number): void;
  /** How many tasks went through the account's queue. */
  queued(): number;
}

async function withDesk<R>(body: (harness: Harness) => Promise<R>, options: { maxOpen?: number } = {}): Promise<R> {
  const stub = await getAgentByName(env.ACCOUNT_AGENT, `desk-unit-${crypto.randomUUID()}`);
  return runInDurableObject(stub, async (_instance, state) => {
    let now = START;
    let queued = 0;
    const orders = new FakeOrders();
    const store = new ProposalStore(state.storage.sql);
    const desk = new ProposalDesk({
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
    });
    return body({ desk, orders, store, advance: (minutes) => (now += minutes * 60_000), queued: () => queued });
  });
}

function value<T>(result: Result<T>): T {
  if (!result.ok) throw new Error(`expected success, got ${result.error.code}: ${result.error.message}`);
  return result.value;
}

function address(line1: string) {
  return { ...DEFAULT_ADDRESS, line1, line2: null };
}

describe("superseding", () => {
  it("a new address change supersedes the order's older pending one, which then says so and cannot be decided or applied", async () => {
    await withDesk(async ({ desk, orders }) => {
      orders.add(order("ORD-1"));
      const first = value(await desk.prepareAddressChange("ORD-1", address("1 Elm St"), "Ada"));
      const second = value(await desk.prepareAddressChange("ORD-1", address("2 Oak Ave"), "Ada"));

      const older = value(await desk.getProposal(first.proposal_id));
      expect(older.status).toBe("superseded");
      expect(older.superseded_by).toBe(second.proposal_id);
      expect(older.status_reason).toBe(`superseded by ${second.proposal_id}, a newer proposal for the same order`);
      expect(orders.events.filter((e) => e.event_type === "proposal_superseded").map((e) => e.proposal_id)).toEqual([first.proposal_id]);

      const decided = await desk.decide(first.proposal_id, { decision: "approve", reason: "looks right" }, APPROVER);
      expect(decided).toEqual({
        ok: false,
        error: {
          code: "conflict",
          message: `proposal ${first.proposal_id} was superseded by ${second.proposal_id} for the same order; it will not be decided. Use the newer proposal.`,
        },
      });
      const confirmed = await desk.confirm(first.proposal_id, "Ada");
      expect(confirmed.ok).toBe(false);
      expect(value(await desk.getProposal(second.proposal_id)).status).toBe("pending_approval");
    });
  });

  it("the change summary tells two address proposals for one order apart", async () => {
    await withDesk(async ({ desk, orders }) => {
      orders.add(order("ORD-1"));
      const first = value(await desk.prepareAddressChange("ORD-1", address("1 Elm St"), "Ada"));
      const second = value(await desk.prepareAddressChange("ORD-1", address("2 Oak Ave"), "Ada"));
      expect(first.change_summary).toBe("Ship to Test Recipient, 1 Elm St, Springfield, IL 62701, US");
      expect(second.change_summary).toBe("Ship to Test Recipient, 2 Oak Ave, Springfield, IL 62701, US");
    });
  });

  it("asking again for the same change reuses the open proposal instead of superseding it", async () => {
    await withDesk(async ({ desk, orders }) => {
      orders.add(order("ORD-1"));
      const first = value(await desk.prepareAddressChange("ORD-1", address("1 Elm St"), "Ada"));
      const again = value(await desk.prepareAddressChange("ORD-1", address("1 elm st"), "Ada"));
      expect(again.proposal_id).toBe(first.proposal_id);
      expect(value(await desk.getProposal(first.proposal_id)).status).toBe("pending_approval");
    });
  });

  it("a proposal of another kind for the same order is left alone", async () => {
    await withDesk(async ({ desk, orders }) => {
      orders.add(order("ORD-1"));
      const resolution = value(await desk.proposeResolution("ORD-1", "Ada"));
      value(await desk.prepareAddressChange("ORD-1", address("1 Elm St"), "Ada"));
      expect(value(await desk.getProposal(resolution.proposal_id)).status).toBe("pending_approval");
    });
  });

  it("an approved proposal is not superseded: its approver already decided", async () => {
    await withDesk(async ({ desk, orders }) => {
      orders.add(order("ORD-1"));
      const first = value(await desk.prepareAddressChange("ORD-1", address("1 Elm St"), "Ada"));
      value(await desk.decide(first.proposal_id, { decision: "approve", reason: "checked" }, APPROVER));
      await desk.prepareAddressChange("ORD-1", address("2 Oak Ave"), "Ada");
      expect(value(await desk.getProposal(first.proposal_id)).status).toBe("approved");
    });
  });

  it("a flood of 300 address changes for one order leaves one pending proposal", async () => {
    await withDesk(async ({ desk, orders }) => {
      orders.add(order("ORD-1"));
      let last: ProposalView | undefined;
      for (let i = 0; i < 300; i++) last = value(await desk.prepareAddressChange("ORD-1", address(`${i + 1} Flood St`), "Ada"));
      const pending = await desk.pending();
      expect(pending.map((p) => p.proposal_id)).toEqual([last?.proposal_id]);
    });
  });
});

describe("an approved proposal that is not applied yet", () => {
  // The observation: approve address change A, propose B, approve B,
  // and the second apply answers stale. B is now refused while A can be applied.
  async function approvedAddressChange(desk: ProposalDesk, orderId: string, line1: string): Promise<ProposalView> {
    const proposal = value(await desk.prepareAddressChange(orderId, address(line1), "Ada"));
    return value(await desk.decide(proposal.proposal_id, { decision: "approve", reason: "checked with the customer" }, APPROVER));
  }

  it("blocks a new proposal of its kind for that order, with a message that names it and says what to do", async () => {
    await withDesk(async ({ desk, orders, store }) => {
      orders.add(order("ORD-1"));
      const approved = await approvedAddressChange(desk, "ORD-1", "1 Elm St");
      const eventsBefore = orders.events.length;

      expect(await desk.prepareAddressChange("ORD-1", address("2 Oak Ave"), "Ada")).toEqual({
        ok: false,
        error: {
          code: "conflict",
          message:
            `order ORD-1 already has an approved address change, ${approved.proposal_id} (Ship to Test Recipient, 1 Elm St, Springfield, IL 62701, US), ` +
            `approved by Avery and not applied yet; a second one would conflict with it. ` +
            `Apply it with apply_approved_change if it is still wanted, or let it expire at ${approved.expires_at}, then propose again.`,
        },
      });
      expect(orders.events).toHaveLength(eventsBefore);
      expect(store.byStatus(["pending_approval", "approved"]).map((p) => p.proposal_id)).toEqual([approved.proposal_id]);
    });
  });

  it("so two conflicting address changes can never both be approved, and the approved one still applies", async () => {
    await withDesk(async ({ desk, orders }) => {
      orders.add(order("ORD-1"));
      const approved = await approvedAddressChange(desk, "ORD-1", "1 Elm St");
      expect((await desk.prepareAddressChange("ORD-1", address("2 Oak Ave"), "Ada")).ok).toBe(false);
      expect((await desk.pending()).map((p) => p.proposal_id)).toEqual([approved.proposal_id]);
      expect(value(await desk.confirm(approved.proposal_id, "Ada")).status).toBe("applied");
    });
  });

  it("asking again for its exact change answers the approved proposal itself", async () => {
    await withDesk(async ({ desk, orders }) => {
      orders.add(order("ORD-1"));
      const approved = await approvedAddressChange(desk, "ORD-1", "1 Elm St");
      const again = value(await desk.prepareAddressChange("ORD-1", address("1 elm st"), "Ada"));
      expect(again).toMatchObject({ proposal_id: approved.proposal_id, status: "approved" });
    });
  });

  it("stops blocking once applied, expired or overtaken by another change to the order", async () => {
    await withDesk(async ({ desk, orders, advance }) => {
      for (const id of ["ORD-1", "ORD-2", "ORD-3"]) orders.add(order(id));
      value(await desk.confirm((await approvedAddressChange(desk, "ORD-1", "1 Elm St")).proposal_id, "Ada"));
      expect(value(await desk.prepareAddressChange("ORD-1", address("2 Oak Ave"), "Ada")).status).toBe("pending_approval");

      await approvedAddressChange(desk, "ORD-2", "1 Elm St");
      orders.bump("ORD-2");
      expect(value(await desk.prepareAddressChange("ORD-2", address("2 Oak Ave"), "Ada")).status).toBe("pending_approval");

      const waiting = await approvedAddressChange(desk, "ORD-3", "1 Elm St");
      advance(TTL_MINUTES);
      expect(value(await desk.prepareAddressChange("ORD-3", address("2 Oak Ave"), "Ada")).status).toBe("pending_approval");
      expect(value(await desk.getProposal(waiting.proposal_id)).status).toBe("expired");
    });
  });

  it("does not block a proposal of the other kind; asking again for the approved resolution answers it", async () => {
    await withDesk(async ({ desk, orders }) => {
      orders.add(order("ORD-1"));
      const resolution = value(await desk.proposeResolution("ORD-1", "Ada"));
      value(await desk.decide(resolution.proposal_id, { decision: "approve", reason: "escalate it" }, APPROVER));
      expect(value(await desk.prepareAddressChange("ORD-1", address("2 Oak Ave"), "Ada")).status).toBe("pending_approval");
      // At one order version the playbook always picks the same action, so this is the approved proposal itself.
      expect(value(await desk.proposeResolution("ORD-1", "Ada")).proposal_id).toBe(resolution.proposal_id);
    });
  });
});

describe("the open-proposal cap", () => {
  it("refuses a proposal over the cap with a readable message, and counts only proposals still open", async () => {
    await withDesk(
      async ({ desk, orders, advance }) => {
        for (const id of ["ORD-1", "ORD-2", "ORD-3", "ORD-4"]) orders.add(order(id));
        const first = value(await desk.proposeResolution("ORD-1", "Ada"));
        advance(1);
        const second = value(await desk.proposeResolution("ORD-2", "Ada"));
        value(await desk.decide(second.proposal_id, { decision: "approve", reason: "checked" }, APPROVER));
        expect(await desk.proposeResolution("ORD-3", "Ada")).toEqual({
          ok: false,
          error: {
            code: "conflict",
            message:
              "this account already has 2 open proposals (1 waiting for approval, 1 approved but not applied), and MAX_OPEN_PROPOSALS allows 2; " +
              `ask an approver to decide the waiting ones, apply the approved ones, or wait until the first expires at ${first.expires_at}, then propose again`,
          },
        });
        advance(TTL_MINUTES);
        expect(value(await desk.proposeResolution("ORD-3", "Ada")).status).toBe("pending_approval");
      },
      { maxOpen: 2 },
    );
  });

  it("does not count a proposal whose order has moved on: it can never be approved, and the approver's list leaves it out too", async () => {
    await withDesk(
      async ({ desk, orders }) => {
        for (const id of ["ORD-1", "ORD-2", "ORD-3"]) orders.add(order(id));
        value(await desk.proposeResolution("ORD-1", "Ada"));
        value(await desk.proposeResolution("ORD-2", "Ada"));
        orders.bump("ORD-1");
        expect((await desk.pending()).map((p) => p.order_id)).toEqual(["ORD-2"]);
        expect(value(await desk.proposeResolution("ORD-3", "Ada")).status).toBe("pending_approval");
        expect((await desk.proposeResolution("ORD-1", "Ada")).ok).toBe(false);
      },
      { maxOpen: 2 },
    );
  });

  it("a refused proposal records nothing", async () => {
    await withDesk(
      async ({ desk, orders }) => {
        orders.add(order("ORD-1"));
        orders.add(order("ORD-2"));
        value(await desk.proposeResolution("ORD-1", "Ada"));
        const eventsBefore = orders.events.length;
        expect((await desk.proposeResolution("ORD-2", "Ada")).ok).toBe(false);
        expect(orders.events).toHaveLength(eventsBefore);
      },
      { maxOpen: 1 },
    );
  });
});

describe("reading without waiting", () => {
  it("the pending list goes through no queue, reads the versions once and writes nothing", async () => {
    await withDesk(async ({ desk, orders, store, queued }) => {
      for (const id of ["ORD-1", "ORD-2", "ORD-3"]) orders.add(order(id));
      for (const id of ["ORD-1", "ORD-2", "ORD-3"]) value(await desk.proposeResolution(id, "Ada"));
      orders.bump("ORD-2");
      const before = JSON.stringify(store.byStatus(["pending_approval", "approved", "stale", "expired"]));
      const queuedBefore = queued();
      const readsBefore = orders.versionReads;

      const pending = await desk.pending();

      expect(pending.map((p) => p.order_id).sort()).toEqual(["ORD-1", "ORD-3"]);
      expect(queued()).toBe(queuedBefore);
      expect(orders.versionReads).toBe(readsBefore + 1);
      expect(JSON.stringify(store.byStatus(["pending_approval", "approved", "stale", "expired"]))).toBe(before);
    });
  });

  it("get_proposal goes through no queue either", async () => {
    await withDesk(async ({ desk, orders, queued }) => {
      orders.add(order("ORD-1"));
      const proposal = value(await desk.proposeResolution("ORD-1", "Ada"));
      const queuedBefore = queued();
      expect(value(await desk.getProposal(proposal.proposal_id)).status).toBe("pending_approval");
      expect(queued()).toBe(queuedBefore);
    });
  });
});

describe("derived states, with an injected clock", () => {
  it("a proposal expires when its window closes, and says when", async () => {
    await withDesk(async ({ desk, orders, advance }) => {
      orders.add(order("ORD-1"));
      const proposal = value(await desk.proposeResolution("ORD-1", "Ada"));
      advance(TTL_MINUTES - 1);
      expect(value(await desk.getProposal(proposal.proposal_id)).status).toBe("pending_approval");
      advance(1);
      const expired = value(await desk.getProposal(proposal.proposal_id));
      expect(expired.status).toBe("expired");
      expect(expired.status_reason).toBe(`the approval window closed at ${proposal.expires_at}`);
      expect(await desk.pending()).toEqual([]);
    });
  });

  it("a stale proposal says which versions the order moved between", async () => {
    await withDesk(async ({ desk, orders }) => {
      orders.add(order("ORD-1"));
      const proposal = value(await desk.proposeResolution("ORD-1", "Ada"));
      orders.bump("ORD-1");
      const stale = value(await desk.getProposal(proposal.proposal_id));
      expect(stale.status).toBe("stale");
      expect(stale.status_reason).toBe("order ORD-1 moved from version 1 to 2 after this proposal was made");
    });
  });

  it("an approved proposal is applied once through the port, and the second confirm answers the stored outcome", async () => {
    await withDesk(async ({ desk, orders }) => {
      orders.add(order("ORD-1"));
      const proposal = value(await desk.proposeResolution("ORD-1", "Ada"));
      value(await desk.decide(proposal.proposal_id, { decision: "approve", reason: "checked" }, APPROVER));
      const first = value(await desk.confirm(proposal.proposal_id, "Ada"));
      const second = value(await desk.confirm(proposal.proposal_id, "Ada"));
      expect(first.status).toBe("applied");
      expect(second).toEqual(first);
      expect(orders.applied.size).toBe(1);
    });
  });
});
