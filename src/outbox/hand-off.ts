import type { Config } from "../config/config";
import type { Destination } from "../notify/events";
import type { OutboxWriter } from "../store/outbox";
import { markEnqueued, type OwedEvent } from "../store/outbox-delivery";
import type { OutboxMessage } from "./messages";

/** Queues takes at most this many messages in one sendBatch. */
const SEND_BATCH_LIMIT = 100;

/**
 * Hands rows to the queue, then marks them enqueued: the drain leaves them
 * alone for `redriveSeconds`. Throws if the queue refuses them: the rows stay
 * owed and the drain tries again.
 */
export async function enqueueOwed(
  queue: Queue<OutboxMessage>,
  db: D1Database,
  events: readonly OwedEvent[],
  now: Date,
  redriveSeconds: number,
): Promise<void> {
  for (let start = 0; start < events.length; start += SEND_BATCH_LIMIT) {
    const chunk = events.slice(start, start + SEND_BATCH_LIMIT);
    await queue.sendBatch(
      chunk.map(({ event_id, account }) => ({ body: { event_id, account }, contentType: "json" as const })),
    );
    await markEnqueued(
      db,
      chunk.map((event) => event.event_id),
      now,
      new Date(now.getTime() + redriveSeconds * 1000),
    );
  }
}

/** The destinations this configuration delivers to. */
export function configuredDestinations(config: Pick<Config, "webhooks">): Destination[] {
  return (Object.keys(config.webhooks) as Destination[]).filter(
    (destination) => config.webhooks[destination] !== undefined,
  );
}

interface WriterDeps {
  readonly config: Pick<Config, "webhooks" | "outboxRedriveSeconds">;
  /** Read at hand-off time: the queue binding is a way out of the writer. */
  readonly queue: () => Queue<OutboxMessage>;
  readonly db: D1Database;
  readonly approvalUrl: (proposalId: string) => string;
  /** Keeps the hand-off running after the writer's answer (ctx.waitUntil). */
  readonly defer: (task: Promise<unknown>) => void;
}

/**
 * The outbox writer of a Worker or object with this configuration: after each
 * commit it hands the new rows to OUTBOX_QUEUE without holding up the
 * writer's answer. A hand-off that fails is logged and left to the drain.
 */
export function outboxWriter({ config, queue, db, approvalUrl, defer }: WriterDeps): OutboxWriter {
  return {
    destinations: configuredDestinations(config),
    approvalUrl,
    handOff: (events) =>
      defer(
        enqueueOwed(queue(), db, events, new Date(), config.outboxRedriveSeconds).catch((error: unknown) => {
          console.error(
            `outbox: ${events.length} event(s) not handed to the queue yet; the drain will retry: ${error instanceof Error ? error.message : String(error)}`,
          );
        }),
      ),
  };
}
