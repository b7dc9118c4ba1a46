import { env } from "cloudflare:workers";
import { afterAll, describe, expect, it } from "vitest";
import type { ApplyCommand } from "../../src/orders/port";
import { D1AccountOrders } from "../../src/store/account-orders";
import { applyProposalChange } from "../../src/store/operations";
import { insertFreshOrder, readRow } from "../helpers/fresh-orders";
import { expectInvariantsHold } from "../helpers/orders";
import { countApplied, countRows } from "../helpers/rows";
import { proposalAuditEvent, recordingWriter } from "../helpers/webhooks";

// The outbox rows are written in the same D1 batch (one transaction) as the
// change they announce: both exist, or neither does. Only rows this write
// added are handed on after the commit.

afterAll(expectInvariantsHold);

function outboxRowsFor(proposalId: string): Promise<{ event_id: string; destination: string; event_type: string }[]> {
  return env.DB.prepare(
    "SELECT event_id, destination, event_type FROM outbox WHERE instr(event_id, '/' || ? || ':') > 0 ORDER BY rowid",
  )
    .bind(proposalId)
    .all<{ event_id: string; destination: string; event_type: string }>()
    .then((result) => result.results);
}

function auditEventsFor(proposalId: string): Promise<number> {
  return countRows("SELECT count(*) AS n FROM audit_events WHERE proposal_id = ?", proposalId);
}

function applyCommand(orderId: string, proposalId: string): ApplyCommand {
  return {
    proposal_id: proposalId,
    order_id: orderId,
    pinned_version: 1,
    change: { kind: "resolution", action: "retry_fulfillment" },
    confirmed_by: "outbox test",
    approved_by: "outbox approver",
    approval_reason: "announce it",
  };
}

/**
 * Refuses every outbox insert for `account` (only that account, so the rest
 * of the suite writes on) for the length of `body`.
 */
async function withOutboxRefusedFor<R>(account: string, body: () => Promise<R>): Promise<R> {
  const trigger = `outbox_refuses_${account.replace(/-/g, "_")}`;
  await env.DB.prepare(
    `CREATE TRIGGER ${trigger} BEFORE INSERT ON outbox WHEN NEW.account = '${account}' BEGIN SELECT RAISE(ABORT, 'outbox refused for the test'); END`,
  ).run();
  try {
    return await body();
  } finally {
    await env.DB.prepare(`DROP TRIGGER ${trigger}`).run();
  }
}

describe("recordEvent: the audit event and its outbox row in one batch", () => {
  it("a proposal's creation writes its audit event and one approvals row, and hands that row on", async () => {
    const writer = recordingWriter(["approvals", "downstream"]);
    const event = proposalAuditEvent("proposal_created");
    const proposalId = event.proposal_id ?? "";
    await new D1AccountOrders(
      env.DB,
      "acme",
      () => new Date(),
      () => undefined,
      writer,
    ).recordEvent(event);
    expect(await auditEventsFor(proposalId)).toBe(1);
    const rows = await outboxRowsFor(proposalId);
    expect(rows).toEqual([
      {
        event_id: `acme/${proposalId}:proposal_created/approvals/proposal.created`,
        destination: "approvals",
        event_type: "proposal.created",
      },
    ]);
    expect(writer.handedOff.map((row) => row.event_id)).toEqual(rows.map((row) => row.event_id));
  });

  it("recording the same event again keeps one row and hands nothing on a second time", async () => {
    const writer = recordingWriter(["approvals"]);
    const orders = new D1AccountOrders(
      env.DB,
      "acme",
      () => new Date(),
      () => undefined,
      writer,
    );
    const event = proposalAuditEvent("proposal_approved");
    await orders.recordEvent(event);
    await orders.recordEvent(event);
    expect(await outboxRowsFor(event.proposal_id ?? "")).toHaveLength(1);
    expect(writer.handedOff).toHaveLength(1);
  });

  it("a destination without a webhook gets no row; with none configured nothing is written beside the audit event", async () => {
    const event = proposalAuditEvent("proposal_rejected");
    await new D1AccountOrders(
      env.DB,
      "acme",
      () => new Date(),
      () => undefined,
      recordingWriter(["downstream"]),
    ).recordEvent(event);
    const other = proposalAuditEvent("proposal_created");
    await new D1AccountOrders(env.DB, "acme").recordEvent(other);
    expect(await outboxRowsFor(event.proposal_id ?? "")).toEqual([]);
    expect(await outboxRowsFor(other.proposal_id ?? "")).toEqual([]);
    expect(await auditEventsFor(other.proposal_id ?? "")).toBe(1);
  });

  it("a batch that fails writes neither the audit event nor the outbox row, and hands nothing on", async () => {
    const account = "outbox-refused";
    const writer = recordingWriter(["approvals"]);
    const event = proposalAuditEvent("proposal_created", account);
    await withOutboxRefusedFor(account, async () => {
      await expect(
        new D1AccountOrders(
          env.DB,
          account,
          () => new Date(),
          () => undefined,
          writer,
        ).recordEvent(event),
      ).rejects.toThrow(/outbox refused/);
    });
    expect(await auditEventsFor(event.proposal_id ?? "")).toBe(0);
    expect(await outboxRowsFor(event.proposal_id ?? "")).toEqual([]);
    expect(writer.handedOff).toEqual([]);
  });
});

describe("applyProposal: the order update, its audit event and its outbox rows in one batch", () => {
  it("an apply writes proposal.applied for approvers and proposal.applied and order.updated downstream, once under 10 concurrent applies", async () => {
    const orderId = await insertFreshOrder({ exception: "fulfillment_incomplete_carrier_timeout" });
    const proposalId = `prop_outbox_${crypto.randomUUID()}`;
    const writer = recordingWriter(["approvals", "downstream"]);
    const results = await Promise.all(
      Array.from({ length: 10 }, () =>
        applyProposalChange(env.DB, "acme", applyCommand(orderId, proposalId), new Date(), writer),
      ),
    );
    expect(results.filter((result) => result.kind === "applied")).toHaveLength(1);
    const rows = await outboxRowsFor(proposalId);
    expect(rows.map((row) => `${row.destination} ${row.event_type}`)).toEqual([
      "approvals proposal.applied",
      "downstream proposal.applied",
      "downstream order.updated",
    ]);
    expect(writer.handedOff.map((row) => row.event_id).sort()).toEqual(rows.map((row) => row.event_id).sort());
    const updated = JSON.parse(
      (
        await env.DB.prepare("SELECT payload FROM outbox WHERE event_id = ?")
          .bind(`acme/${proposalId}:applied/downstream/order.updated`)
          .first<{ payload: string }>()
      )?.payload ?? "{}",
    );
    expect(updated.data).toMatchObject({
      order_id: orderId,
      proposal_id: proposalId,
      order_version: 2,
      state_before: { version: 1 },
      state_after: { version: 2 },
    });
  });

  it("a stale apply writes no outbox row", async () => {
    const orderId = await insertFreshOrder({ exception: "fraud_review" });
    const proposalId = `prop_outbox_${crypto.randomUUID()}`;
    const result = await applyProposalChange(
      env.DB,
      "acme",
      { ...applyCommand(orderId, proposalId), pinned_version: 5 },
      new Date(),
      recordingWriter(),
    );
    expect(result.kind).toBe("stale");
    expect(await outboxRowsFor(proposalId)).toEqual([]);
  });

  it("a batch that fails on the outbox row leaves the order, the application and the audit trail untouched", async () => {
    const account = "outbox-refused-apply";
    const orderId = await insertFreshOrder({ account, exception: "fulfillment_incomplete_carrier_timeout" });
    const before = await readRow(account, orderId);
    const proposalId = `prop_outbox_${crypto.randomUUID()}`;
    const writer = recordingWriter(["downstream"]);
    await withOutboxRefusedFor(account, async () => {
      await expect(
        new D1AccountOrders(
          env.DB,
          account,
          () => new Date(),
          () => undefined,
          writer,
        ).applyProposal(applyCommand(orderId, proposalId)),
      ).rejects.toThrow(/outbox refused/);
    });
    expect(await readRow(account, orderId)).toEqual(before);
    expect(await countApplied(proposalId)).toBe(0);
    expect(await auditEventsFor(proposalId)).toBe(0);
    expect(await outboxRowsFor(proposalId)).toEqual([]);
    expect(writer.handedOff).toEqual([]);
  });
});
