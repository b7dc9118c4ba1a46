import { type Config, loadConfig } from "../config/config";
import { webhookUrlVar } from "../config/webhooks";
import { judgeDelivery } from "../notify/retry-policy";
import { accountDatabase } from "../store/databases";
import { deadLetter, markDelivered, readOutboxRow, recordFailedAttempt } from "../store/outbox-delivery";
import { postWebhook } from "./deliver";
import { OutboxMessageSchema } from "./messages";

/**
 * The queue consumers. The outbox queue's consumer POSTs each event to its
 * destination's webhook and acks it, retries it with backoff, or dead-letters
 * it at once (judgeDelivery). After the queue's retry limit a message moves to
 * the dead-letter queue, whose consumer records it in dead_letters.
 */

export interface DeliveryDeps {
  readonly fetch: typeof fetch;
  readonly now: () => Date;
}

const LIVE: DeliveryDeps = { fetch: (input, init) => fetch(input, init), now: () => new Date() };

/** If the bookkeeping itself fails, the message comes back after this long. */
const BOOKKEEPING_RETRY_SECONDS = 30;

function messageOf(message: Message<unknown>): { event_id: string; account: string } | undefined {
  const parsed = OutboxMessageSchema.safeParse(message.body);
  if (parsed.success) return parsed.data;
  // Nothing this Worker sends looks like this; retrying it would only repeat the failure.
  console.error(`outbox: message ${message.id} is not an outbox message; dropped`);
  return undefined;
}

async function deliverOne(message: Message<unknown>, env: Env, config: Config, deps: DeliveryDeps): Promise<void> {
  const named = messageOf(message);
  if (!named) return message.ack();
  const db = accountDatabase(env, named.account);
  const row = await readOutboxRow(db, named.event_id);
  // Gone, delivered or given up on: a second copy of a message (the drain's) sends nothing.
  if (!row || row.delivered_at !== null || row.dead_lettered_at !== null) return message.ack();
  const webhook = config.webhooks[row.destination];
  if (!webhook) {
    const reason = `no webhook is configured for ${row.destination} any more (${webhookUrlVar(row.destination)} is not set)`;
    await deadLetter(db, row.event_id, { status: null, reason, attempted: false, at: deps.now() });
    return message.ack();
  }
  const attempt = await postWebhook(row, webhook, deps.now(), deps.fetch);
  const verdict = judgeDelivery(attempt, message.attempts);
  const status = attempt.kind === "answered" ? attempt.status : null;
  const at = deps.now();
  switch (verdict.kind) {
    case "delivered":
      await markDelivered(db, row.event_id, status ?? 0, at);
      return message.ack();
    case "dead":
      await deadLetter(db, row.event_id, { status, reason: verdict.reason, attempted: true, at });
      return message.ack();
    case "retry":
      await recordFailedAttempt(db, row.event_id, {
        status,
        error: verdict.error,
        drainAfter: new Date(at.getTime() + (verdict.delaySeconds + config.outboxRedriveSeconds) * 1000),
      });
      return message.retry({ delaySeconds: verdict.delaySeconds });
  }
}

export async function consumeOutbox(batch: MessageBatch<unknown>, env: Env, deps: DeliveryDeps = LIVE): Promise<void> {
  const config = loadConfig(env);
  if (!config.ok) {
    // A Worker that cannot read its configuration delivers nothing until it is fixed; loadConfig logged why.
    batch.retryAll({ delaySeconds: BOOKKEEPING_RETRY_SECONDS });
    return;
  }
  await Promise.all(
    batch.messages.map((message) =>
      deliverOne(message, env, config.value, deps).catch((error: unknown) => {
        console.error(
          `outbox: delivery bookkeeping failed for message ${message.id}; it will be retried: ${error instanceof Error ? error.message : String(error)}`,
        );
        message.retry({ delaySeconds: BOOKKEEPING_RETRY_SECONDS });
      }),
    ),
  );
}

/** The dead-letter queue: messages the outbox queue gave up on after its retry limit. */
export async function consumeDeadLetters(
  batch: MessageBatch<unknown>,
  env: Env,
  now: () => Date = () => new Date(),
): Promise<void> {
  await Promise.all(
    batch.messages.map(async (message) => {
      const named = messageOf(message);
      if (!named) return message.ack();
      try {
        const db = accountDatabase(env, named.account);
        const row = await readOutboxRow(db, named.event_id);
        if (row && row.delivered_at === null && row.dead_lettered_at === null) {
          const last = row.last_error ?? "no answer was recorded";
          await deadLetter(db, row.event_id, {
            status: null,
            reason: `the queue gave up after ${row.attempts} attempt(s); the last: ${last}`,
            attempted: false,
            at: now(),
          });
        }
        message.ack();
      } catch (error) {
        console.error(
          `outbox: could not record dead letter ${named.event_id}; it will be retried: ${error instanceof Error ? error.message : String(error)}`,
        );
        message.retry({ delaySeconds: BOOKKEEPING_RETRY_SECONDS });
      }
    }),
  );
}
