/// <reference types="vite/client" />
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { OUTBOX_QUEUE_NAME } from "../../src/outbox/messages";
import { countDeadLetters, listDeadLetters } from "../../src/store/outbox-delivery";
import wranglerToml from "../../wrangler.toml?raw";
import {
  DEAD_LETTER_QUEUE,
  deliveriesUnder,
  messageFor,
  outboxRow,
  proposalAuditEvent,
  receiverPath,
  runQueue,
  webhookVars,
  writeOutboxRows,
} from "../helpers/webhooks";

// After the queue's retry limit a message moves to the dead-letter queue; its
// consumer records the event in dead_letters, where an admin reads them per
// account. Driven one batch at a time, as the queue would deliver them.

/** wrangler.toml's consumer blocks, each up to the next table. */
const consumers = wranglerToml
  .split("[[queues.consumers]]")
  .slice(1)
  .map((block) => block.split(/^\[/m)[0] ?? "");
const outboxConsumer = consumers.find((block) => new RegExp(`^\\s*queue = "${OUTBOX_QUEUE_NAME}"$`, "m").test(block));

/** The outbox consumer's max_retries: a message gets that many retries after its first attempt. */
function configuredMaxRetries(): number {
  const consumer = outboxConsumer;
  const retries = /^max_retries = (\d+)$/m.exec(consumer ?? "")?.[1];
  if (retries === undefined) throw new Error(`wrangler.toml has no max_retries for the ${OUTBOX_QUEUE_NAME} consumer`);
  return Number(retries);
}

describe("dead letters", () => {
  it("wrangler.toml names the queues as the code does, and gives the outbox queue a retry limit and a dead-letter queue that this Worker consumes", () => {
    expect(outboxConsumer).toMatch(new RegExp(`^dead_letter_queue = "${DEAD_LETTER_QUEUE}"$`, "m"));
    expect(consumers.some((block) => new RegExp(`^\\s*queue = "${DEAD_LETTER_QUEUE}"$`, "m").test(block))).toBe(true);
    expect(configuredMaxRetries()).toBeGreaterThanOrEqual(3);
  });

  it("a receiver that keeps failing is retried up to the limit, then the dead-letter queue records it with the last answer", async () => {
    const tag = crypto.randomUUID();
    const [row] = await writeOutboxRows(proposalAuditEvent("proposal_created", "initech"), ["approvals"]);
    if (!row) throw new Error("no row");
    const attempts = configuredMaxRetries() + 1;
    for (let attempt = 1; attempt <= attempts; attempt++) {
      const result = await runQueue([{ body: messageFor(row), attempts: attempt }], webhookVars("always-500", tag));
      // Every attempt asks for a retry; after the last one the queue moves the message on instead.
      expect(result.retried).toHaveLength(1);
    }
    const deliveries = await deliveriesUnder(receiverPath("approvals", "always-500", tag));
    expect(deliveries).toHaveLength(attempts);
    expect(new Set(deliveries.map((d) => d.key))).toEqual(new Set([row.event_id]));
    expect(await countDeadLetters(env.DB, "initech")).toBe(0);

    const dead = await runQueue([{ body: messageFor(row), attempts: 1 }], {}, DEAD_LETTER_QUEUE);
    expect(dead.acked).toEqual(dead.ids);
    const letters = await listDeadLetters(env.DB, "initech");
    expect(letters).toEqual([
      expect.objectContaining({
        event_id: row.event_id,
        account: "initech",
        destination: "approvals",
        event_type: "proposal.created",
        attempts,
        last_status: 500,
        payload: row.payload,
      }),
    ]);
    expect(letters[0]?.reason).toMatch(
      new RegExp(`^the queue gave up after ${attempts} attempt\\(s\\); the last: the receiver answered 500`),
    );
    expect((await outboxRow(row.event_id)).dead_lettered_at).not.toBeNull();
    // Another account's admin sees none of them.
    expect((await listDeadLetters(env.DB, "acme", 500)).some((letter) => letter.event_id === row.event_id)).toBe(false);

    // The dead-letter queue delivering its message twice records it once.
    await runQueue([{ body: messageFor(row), attempts: 1 }], {}, DEAD_LETTER_QUEUE);
    expect(await countDeadLetters(env.DB, "initech")).toBe(1);
  });

  it("a dead-letter message for an event another copy delivered meanwhile records nothing", async () => {
    const tag = crypto.randomUUID();
    const [row] = await writeOutboxRows(proposalAuditEvent("proposal_approved", "umbrella"), ["approvals"]);
    if (!row) throw new Error("no row");
    await runQueue([{ body: messageFor(row) }], webhookVars("ok", tag));
    await runQueue([{ body: messageFor(row) }], {}, DEAD_LETTER_QUEUE);
    expect(await countDeadLetters(env.DB, "umbrella")).toBe(0);
    expect((await outboxRow(row.event_id)).delivered_at).not.toBeNull();
  });
});
