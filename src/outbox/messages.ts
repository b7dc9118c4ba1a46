import { z } from "zod/v4";

/**
 * What travels through the outbox queues: only the row's id and account (which
 * names its database). The consumer reads the row itself, so a message that
 * arrives twice, or after its row was delivered, sends nothing again.
 */
export const OutboxMessageSchema = z.object({ event_id: z.string().min(1), account: z.string().min(1) });
export type OutboxMessage = z.infer<typeof OutboxMessageSchema>;

/**
 * The queues' names, as wrangler.toml declares them. The Worker consumes both
 * and tells them apart by name; the test suite fails if wrangler.toml disagrees.
 */
export const OUTBOX_QUEUE_NAME = "order-ops-outbox";
export const OUTBOX_DEAD_LETTER_QUEUE_NAME = "order-ops-outbox-dlq";
