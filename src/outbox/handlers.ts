import { consumeDeadLetters, consumeOutbox } from "./consumer";
import { drainOutbox } from "./drain";
import { OUTBOX_DEAD_LETTER_QUEUE_NAME } from "./messages";

/** The Worker's queue handler: both outbox queues come here, told apart by name. */
export async function handleQueue(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  if (batch.queue === OUTBOX_DEAD_LETTER_QUEUE_NAME) return consumeDeadLetters(batch, env);
  return consumeOutbox(batch, env);
}

/** The cron trigger: the drain. */
export async function handleScheduled(controller: ScheduledController, env: Env): Promise<void> {
  const { enqueued } = await drainOutbox(env, new Date(controller.scheduledTime));
  if (enqueued > 0) console.log(`outbox drain: handed ${enqueued} owed event(s) to the queue again`);
}
