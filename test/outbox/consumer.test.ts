import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { WebhookBodySchema } from "../../src/notify/events";
import { consumeOutbox } from "../../src/outbox/consumer";
import { OUTBOX_QUEUE_NAME } from "../../src/outbox/messages";
import { listDeadLetters } from "../../src/store/outbox-delivery";
import { countRows } from "../helpers/rows";
import {
  type Behaviour,
  deliveriesUnder,
  messageFor,
  outboxRow,
  proposalAuditEvent,
  receiverPath,
  runQueue,
  webhookVars,
  writeOutboxRows,
} from "../helpers/webhooks";

// The outbox queue's consumer, one batch at a time (createMessageBatch), against
// the local receiver: what it sends, and what it acks, retries and dead-letters.

/** A committed proposal.created row, and a receiver path of its own answering with `behaviour`. */
async function createdRow(behaviour: Behaviour) {
  const tag = crypto.randomUUID();
  const [row] = await writeOutboxRows(proposalAuditEvent("proposal_created"), ["approvals"]);
  if (!row) throw new Error("no outbox row written");
  return { row, tag, vars: webhookVars(behaviour, tag), path: receiverPath("approvals", behaviour, tag) };
}

describe("the outbox consumer", () => {
  it("POSTs the stored body, signed (Standard Webhooks), with the event id as webhook-id; acks it and marks the row delivered", async () => {
    const { row, vars, path } = await createdRow("ok");
    const result = await runQueue([{ body: messageFor(row) }], vars);
    expect(result.retried).toEqual([]);
    expect(result.acked).toEqual(result.ids);

    const [delivery, ...more] = await deliveriesUnder(path);
    expect(more).toEqual([]);
    expect(delivery).toMatchObject({
      key: row.event_id,
      event_type: "proposal.created",
      verified: true,
      repeat: false,
      status: 200,
      raw_body: row.payload,
    });
    expect(delivery?.signature).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    // The headers from before Standard Webhooks are gone (CHANGELOG.md, Removed).
    for (const removed of ["x-order-ops-signature", "x-order-ops-timestamp", "idempotency-key"])
      expect(delivery?.headers[removed], removed).toBeUndefined();
    const body = WebhookBodySchema.parse(delivery?.body);
    expect(body).toMatchObject({ id: row.event_id, type: "proposal.created", account: "acme" });
    expect(body.text).toContain("http://localhost/approvals/");

    const stored = await outboxRow(row.event_id);
    expect(stored).toMatchObject({ attempts: 1, last_status: 200, last_error: null, dead_lettered_at: null });
    expect(stored.delivered_at).not.toBeNull();
  });

  it("a second copy of a delivered event's message (the drain's) sends nothing and is acked", async () => {
    const { row, vars, path } = await createdRow("ok");
    await runQueue([{ body: messageFor(row) }], vars);
    const again = await runQueue([{ body: messageFor(row) }], vars);
    expect(again.acked).toEqual(again.ids);
    expect(await deliveriesUnder(path)).toHaveLength(1);
    expect((await outboxRow(row.event_id)).attempts).toBe(1);
  });

  it("a receiver that fails (500) gets it again after the backoff: the same key twice, taken once", async () => {
    const { row, vars, path } = await createdRow("fail-once");
    const first = await runQueue([{ body: messageFor(row), attempts: 1 }], vars);
    expect(first.retried).toEqual([{ id: first.ids[0], delaySeconds: 10 }]);
    expect(await outboxRow(row.event_id)).toMatchObject({ attempts: 1, last_status: 500, delivered_at: null });
    expect((await outboxRow(row.event_id)).last_error).toMatch(/^the receiver answered 500/);

    const second = await runQueue([{ body: messageFor(row), attempts: 2 }], vars);
    expect(second.retried).toEqual([]);
    expect(second.acked).toEqual(second.ids);
    const deliveries = await deliveriesUnder(path);
    expect(deliveries.map((d) => [d.key, d.status])).toEqual([
      [row.event_id, 500],
      [row.event_id, 200],
    ]);
    expect(deliveries.every((d) => d.verified && d.raw_body === row.payload)).toBe(true);
    expect(await outboxRow(row.event_id)).toMatchObject({ attempts: 2, last_status: 200, last_error: null });
  });

  it("backs off exponentially with the attempt number, up to an hour", async () => {
    const { row, vars } = await createdRow("always-500");
    const delays: (number | undefined)[] = [];
    for (const attempts of [1, 2, 3, 4, 12]) {
      const result = await runQueue([{ body: messageFor(row), attempts }], vars);
      delays.push(result.retried[0]?.delaySeconds);
    }
    expect(delays).toEqual([10, 20, 40, 80, 3600]);
  });

  it.each([
    [
      "cannot be reached",
      new TypeError("Network connection lost."),
      /^the receiver could not be reached: Network connection lost\.$/,
    ],
    [
      "does not answer in time",
      new DOMException("The operation timed out.", "TimeoutError"),
      /^no answer within 10 s$/,
    ],
  ])("a receiver that %s is retried, with why", async (_, error, why) => {
    const [row] = await writeOutboxRows(proposalAuditEvent("proposal_created"), ["approvals"]);
    if (!row) throw new Error("no row");
    const failing = { fetch: () => Promise.reject(error), now: () => new Date() };
    const result = await runQueue(
      [{ body: messageFor(row) }],
      webhookVars("ok", "unreachable"),
      OUTBOX_QUEUE_NAME,
      (batch, testEnv) => consumeOutbox(batch, testEnv, failing),
    );
    expect(result.retried).toEqual([{ id: result.ids[0], delaySeconds: 10 }]);
    const stored = await outboxRow(row.event_id);
    expect(stored).toMatchObject({ attempts: 1, last_status: null, delivered_at: null, dead_lettered_at: null });
    expect(stored.last_error).toMatch(why);
  });

  it("a 4xx is dead-lettered at once, with the receiver's status, and not retried", async () => {
    const { row, vars, path } = await createdRow("gone");
    const result = await runQueue([{ body: messageFor(row) }], vars);
    expect(result.retried).toEqual([]);
    expect(result.acked).toEqual(result.ids);
    expect(await deliveriesUnder(path)).toHaveLength(1);

    const stored = await outboxRow(row.event_id);
    expect(stored).toMatchObject({ attempts: 1, last_status: 410, delivered_at: null });
    expect(stored.dead_lettered_at).not.toBeNull();
    const letters = (await listDeadLetters(env.DB, "acme", 500)).filter((letter) => letter.event_id === row.event_id);
    expect(letters).toEqual([
      expect.objectContaining({
        event_id: row.event_id,
        destination: "approvals",
        event_type: "proposal.created",
        payload: row.payload,
        attempts: 1,
        last_status: 410,
      }),
    ]);
    expect(letters[0]?.reason).toMatch(/^the receiver answered 410: .*; a 410 is not retried$/);

    // A late copy of its message changes nothing.
    await runQueue([{ body: messageFor(row) }], vars);
    expect(await deliveriesUnder(path)).toHaveLength(1);
  });

  it("a wrong secret is refused by the receiver (401) and dead-lettered: a signature made with another key does not verify", async () => {
    const { row, vars, path } = await createdRow("ok");
    await runQueue([{ body: messageFor(row) }], { ...vars, NOTIFY_WEBHOOK_SECRET: "not-the-receivers-secret" });
    expect((await deliveriesUnder(path)).map((d) => [d.verified, d.status])).toEqual([[false, 401]]);
    expect(await outboxRow(row.event_id)).toMatchObject({ last_status: 401, delivered_at: null });
  });

  it("a redirect is not followed: dead-lettered, saying where to point the URL", async () => {
    const { row, vars } = await createdRow("redirect");
    await runQueue([{ body: messageFor(row) }], vars);
    const [letter] = (await listDeadLetters(env.DB, "acme", 500)).filter((l) => l.event_id === row.event_id);
    expect(letter).toMatchObject({ last_status: 307 });
    expect(letter?.reason).toContain("redirects are not followed");
  });

  it("an event whose destination has no webhook any more is dead-lettered without a request, naming the var", async () => {
    const [row] = await writeOutboxRows(proposalAuditEvent("proposal_approved"), ["approvals"]);
    if (!row) throw new Error("no row");
    const result = await runQueue([{ body: messageFor(row) }]);
    expect(result.acked).toEqual(result.ids);
    const [letter] = (await listDeadLetters(env.DB, "acme", 500)).filter((l) => l.event_id === row.event_id);
    expect(letter).toMatchObject({
      attempts: 0,
      last_status: null,
      reason: "no webhook is configured for approvals any more (NOTIFY_WEBHOOK_URL is not set)",
    });
  });

  it("each destination is signed with its own secret: downstream events verify only with the downstream secret", async () => {
    const tag = crypto.randomUUID();
    const rows = await writeOutboxRows(proposalAuditEvent("resolution_applied"));
    expect(rows.map((r) => `${r.destination} ${r.event_type}`)).toEqual([
      "approvals proposal.applied",
      "downstream proposal.applied",
      "downstream order.updated",
    ]);
    await runQueue(
      rows.map((row) => ({ body: messageFor(row) })),
      webhookVars("ok", tag),
    );
    const approvals = await deliveriesUnder(receiverPath("approvals", "ok", tag));
    const downstream = await deliveriesUnder(receiverPath("downstream", "ok", tag));
    // Approvals has a whsec_ secret, downstream one from before those (test/global/webhook-receiver.ts): both kinds
    // verify.
    expect(approvals.map((d) => [d.event_type, d.verified])).toEqual([["proposal.applied", true]]);
    expect(downstream.map((d) => [d.event_type, d.verified]).sort()).toEqual([
      ["order.updated", true],
      ["proposal.applied", true],
    ]);
  });

  it("a message that is not an outbox message is acked and dropped, and writes nothing", async () => {
    const before = await countRows("SELECT count(*) AS n FROM dead_letters");
    const result = await runQueue([{ body: { hello: "world" } }, { body: "text" }], webhookVars("ok", "junk"));
    expect(result.acked).toEqual(result.ids);
    expect(await countRows("SELECT count(*) AS n FROM dead_letters")).toBe(before);
  });

  it("a Worker whose configuration is broken retries the whole batch instead of guessing", async () => {
    const { row, vars, path } = await createdRow("ok");
    const result = await runQueue([{ body: messageFor(row) }], { ...vars, NOTIFY_WEBHOOK_SECRET: "" });
    expect(result.retriedAll).toEqual({ delaySeconds: 30 });
    expect(result.result.retryBatch.retry).toBe(true);
    expect(await deliveriesUnder(path)).toEqual([]);
  });
});
