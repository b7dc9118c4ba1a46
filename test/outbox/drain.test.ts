import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { OutboxEvent } from "../../src/notify/events";
import { drainOutbox } from "../../src/outbox/drain";
import { outboxWriter } from "../../src/outbox/hand-off";
import type { OutboxMessage } from "../../src/outbox/messages";
import { recordAuditEventWithOutbox } from "../../src/store/outbox";
import {
  deliveriesUnder,
  messageFor,
  outboxRow,
  proposalAuditEvent,
  receiverPath,
  runQueue,
  webhookVars,
  writeOutboxRows,
} from "../helpers/webhooks";

// The drain: what a Worker that stopped between the commit and the hand-off
// left owed is handed to the queue again, and delivered; what was delivered
// or given up on is left alone. The queue here only records what it is sent
// (the real one is in test/queue/).

const SECOND = 1000;

/** A queue that keeps what it is sent, or refuses everything. */
function recordingQueue(refuse = false): Queue<OutboxMessage> & { readonly sent: OutboxMessage[] } {
  const sent: OutboxMessage[] = [];
  const queue = {
    sent,
    send: async (body: OutboxMessage) => void queue.sendBatch([{ body }]),
    sendBatch: async (messages: Iterable<MessageSendRequest<OutboxMessage>>) => {
      if (refuse) throw new Error("Queue send failed: the queue is unavailable");
      for (const message of messages) sent.push(message.body);
    },
  };
  return queue as unknown as Queue<OutboxMessage> & { readonly sent: OutboxMessage[] };
}

/** Drains at `at` with a recording queue; answers which of `rows` it handed over. */
async function drainAt(at: number, rows: readonly OutboxEvent[], vars: Record<string, string> = {}): Promise<string[]> {
  const queue = recordingQueue();
  await drainOutbox({ ...env, ...vars, OUTBOX_QUEUE: queue } as Env, new Date(at));
  const ids = new Set(rows.map((row) => row.event_id));
  return queue.sent.map((message) => message.event_id).filter((id) => ids.has(id));
}

describe("the drain", () => {
  it("nothing is lost when the Worker stops between the commit and the send: the rows are handed over again, then delivered once", async () => {
    const tag = crypto.randomUUID();
    const written = Date.now();
    // Committed, and then no hand-off at all.
    const rows = await writeOutboxRows(proposalAuditEvent("resolution_applied"));
    expect(rows).toHaveLength(3);
    expect((await outboxRow(rows[0]?.event_id ?? "")).enqueued_at).toBeNull();

    // Within the grace the writer's own hand-off has, the drain leaves them be.
    expect(await drainAt(written + 5 * SECOND, rows)).toEqual([]);
    const handed = await drainAt(written + 31 * SECOND, rows);
    expect(handed.sort()).toEqual(rows.map((row) => row.event_id).sort());
    for (const row of rows) expect((await outboxRow(row.event_id)).enqueued_at).not.toBeNull();
    // Handed over: not again until the queue has had its time.
    expect(await drainAt(written + 60 * SECOND, rows)).toEqual([]);

    const delivered = await runQueue(
      handed.map((eventId) => ({ body: messageFor({ event_id: eventId, account: "acme" }) })),
      webhookVars("ok", tag),
    );
    expect(delivered.acked).toHaveLength(3);
    const received = [
      ...(await deliveriesUnder(receiverPath("approvals", "ok", tag))),
      ...(await deliveriesUnder(receiverPath("downstream", "ok", tag))),
    ];
    expect(received.map((delivery) => delivery.key).sort()).toEqual(rows.map((row) => row.event_id).sort());
    expect(received.every((delivery) => delivery.verified && !delivery.repeat)).toBe(true);

    // Delivered rows are never drained again, however late.
    expect(await drainAt(written + 24 * 60 * 60 * SECOND, rows)).toEqual([]);
  });

  it("a row handed over but never delivered (the message was lost) is handed over again after the redrive wait", async () => {
    const rows = await writeOutboxRows(proposalAuditEvent("proposal_created"), ["approvals"]);
    const start = Date.now();
    const first = await drainAt(start + 31 * SECOND, rows);
    expect(first).toHaveLength(1);
    expect(await drainAt(start + (31 + 299) * SECOND, rows)).toEqual([]);
    expect(await drainAt(start + (31 + 301) * SECOND, rows)).toEqual(first);
  });

  it("a row in retry waits out its backoff before the drain hands it over", async () => {
    const tag = crypto.randomUUID();
    const rows = await writeOutboxRows(proposalAuditEvent("proposal_created"), ["approvals"]);
    const row = rows[0];
    if (!row) throw new Error("no row");
    const start = Date.now();
    // The 8th attempt fails: its retry waits 1280 s, and the drain longer still.
    await runQueue([{ body: messageFor(row), attempts: 8 }], webhookVars("always-500", tag));
    expect(await drainAt(start + 1280 * SECOND, rows)).toEqual([]);
    expect(await drainAt(start + (1280 + 301) * SECOND, rows)).toEqual([row.event_id]);
  });

  it("a dead-lettered row is never drained", async () => {
    const tag = crypto.randomUUID();
    const rows = await writeOutboxRows(proposalAuditEvent("proposal_created"), ["approvals"]);
    await runQueue(
      [{ body: messageFor({ event_id: rows[0]?.event_id ?? "", account: "acme" }) }],
      webhookVars("gone", tag),
    );
    expect(await drainAt(Date.now() + 24 * 60 * 60 * SECOND, rows)).toEqual([]);
  });

  it("a hand-off the queue refuses is logged and left owed, and the drain hands the row over later", async () => {
    const event = proposalAuditEvent("proposal_created");
    const deferred: Promise<unknown>[] = [];
    const writer = outboxWriter({
      config: {
        webhooks: { approvals: { url: "https://hooks.example.com/a", secret: "s" }, downstream: undefined },
        outboxRedriveSeconds: 300,
      },
      queue: () => recordingQueue(true),
      db: env.DB,
      approvalUrl: (id) => `http://localhost/approvals/${id}`,
      defer: (task) => void deferred.push(task),
    });
    await recordAuditEventWithOutbox(env.DB, event, writer);
    await Promise.all(deferred);
    const eventId = `acme/${event.event_id}/approvals/proposal.created`;
    expect(await outboxRow(eventId)).toMatchObject({ enqueued_at: null, delivered_at: null });
    const handed = await drainAt(Date.now() + 31 * SECOND, [{ event_id: eventId } as OutboxEvent]);
    expect(handed).toEqual([eventId]);
  });

  it("a hand-off that works marks the rows enqueued right after the commit", async () => {
    const event = proposalAuditEvent("proposal_created");
    const deferred: Promise<unknown>[] = [];
    const queue = recordingQueue();
    const writer = outboxWriter({
      config: {
        webhooks: { approvals: { url: "https://hooks.example.com/a", secret: "s" }, downstream: undefined },
        outboxRedriveSeconds: 300,
      },
      queue: () => queue,
      db: env.DB,
      approvalUrl: (id) => `http://localhost/approvals/${id}`,
      defer: (task) => void deferred.push(task),
    });
    await recordAuditEventWithOutbox(env.DB, event, writer);
    await Promise.all(deferred);
    const eventId = `acme/${event.event_id}/approvals/proposal.created`;
    expect(queue.sent).toEqual([{ event_id: eventId, account: "acme" }]);
    expect((await outboxRow(eventId)).enqueued_at).not.toBeNull();
  });

  it("OUTBOX_REDRIVE_SECONDS is how long a handed-off event waits before the drain takes its message as lost", async () => {
    const event = proposalAuditEvent("proposal_created");
    const deferred: Promise<unknown>[] = [];
    const written = Date.now();
    // The queue takes the message and then loses it, as a local queue does when wrangler dev is killed.
    const writer = outboxWriter({
      config: {
        webhooks: { approvals: { url: "https://hooks.example.com/a", secret: "s" }, downstream: undefined },
        outboxRedriveSeconds: 10,
      },
      queue: () => recordingQueue(),
      db: env.DB,
      approvalUrl: (id) => `http://localhost/approvals/${id}`,
      defer: (task) => void deferred.push(task),
    });
    await recordAuditEventWithOutbox(env.DB, event, writer);
    await Promise.all(deferred);
    const rows = [{ event_id: `acme/${event.event_id}/approvals/proposal.created` } as OutboxEvent];
    const quick = { OUTBOX_REDRIVE_SECONDS: "10" };
    expect(await drainAt(written + 5 * SECOND, rows, quick)).toEqual([]);
    expect(await drainAt(written + 12 * SECOND, rows, quick)).toEqual([rows[0]?.event_id]);
    // Handed over again, it waits the same 10 s, not the default 5 minutes.
    expect(await drainAt(written + 18 * SECOND, rows, quick)).toEqual([]);
    expect(await drainAt(written + 24 * SECOND, rows, quick)).toEqual([rows[0]?.event_id]);
  });
});
