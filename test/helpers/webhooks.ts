import { createExecutionContext, createMessageBatch, getQueueResult, type QueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { inject } from "vitest";
import type { Delivery } from "../../scripts/lib/webhook-receiver.ts";
import worker from "../../src/index";
import type { Destination, OutboxEvent } from "../../src/notify/events";
import type { NewAuditEvent } from "../../src/orders/audit-event";
import { OUTBOX_DEAD_LETTER_QUEUE_NAME, OUTBOX_QUEUE_NAME, type OutboxMessage } from "../../src/outbox/messages";
import { batchWithOutbox, type OutboxWriter } from "../../src/store/outbox";
import { type OutboxRow, readOutboxRow } from "../../src/store/outbox-delivery";

/**
 * The local webhook receiver that test/global/webhook-receiver.ts starts, as
 * the tests see it, and ways to drive the outbox's queue consumers one batch
 * at a time.
 */
export type { Delivery };

export type Behaviour = "ok" | "fail-once" | "always-500" | "gone" | "redirect";

export function receiver(): { url: string; secrets: { approvals: string; downstream: string } } {
  return inject("webhookReceiver");
}

/** A path of the receiver no other test uses, answering with `behaviour`. */
export function receiverPath(destination: Destination, behaviour: Behaviour, tag: string): string {
  return `/${destination}/${behaviour}/${tag}`;
}

/** The vars that aim both destinations at the receiver under `tag`. */
export function webhookVars(
  behaviour: Behaviour,
  tag: string,
  downstream: Behaviour = behaviour,
): Record<string, string> {
  const { url, secrets } = receiver();
  return {
    NOTIFY_WEBHOOK_URL: `${url}${receiverPath("approvals", behaviour, tag)}`,
    NOTIFY_WEBHOOK_SECRET: secrets.approvals,
    DOWNSTREAM_WEBHOOK_URL: `${url}${receiverPath("downstream", downstream, tag)}`,
    DOWNSTREAM_WEBHOOK_SECRET: secrets.downstream,
  };
}

/** Everything the receiver took under this path prefix, in arrival order. */
export async function deliveriesUnder(prefix: string): Promise<Delivery[]> {
  return (await (await fetch(`${receiver().url}/deliveries?under=${encodeURIComponent(prefix)}`)).json()) as Delivery[];
}

/** A writer for `destinations` that only records what it is handed (a Worker that stops right after the commit). */
export function recordingWriter(
  destinations: readonly Destination[] = ["approvals", "downstream"],
): OutboxWriter & { readonly handedOff: OutboxEvent[] } {
  const handedOff: OutboxEvent[] = [];
  return {
    destinations,
    approvalUrl: (proposalId) => `http://localhost/approvals/${proposalId}`,
    handOff: (events) => void handedOff.push(...events),
    handedOff,
  };
}

let sequence = 0;

/** A proposal's audit event of this type, for a fresh proposal id; nothing is written. */
export function proposalAuditEvent(eventType: string, account = "acme"): NewAuditEvent {
  const proposalId = `prop_hook_${crypto.randomUUID().slice(0, 8)}_${++sequence}`;
  const applied = eventType.endsWith("_applied");
  const state = {
    status: "on_hold",
    version: 3,
    exception: null,
    payment: "authorized",
    inventory: [],
    fulfillment: null,
    shipping_address: null,
  };
  return {
    event_id: `${proposalId}:${eventType}`,
    account,
    order_id: "ORD-HOOK-1",
    event_type: eventType,
    actor_kind: eventType === "proposal_approved" || eventType === "proposal_rejected" ? "approver" : "operator",
    actor: "Hook Tester",
    reason: "checking <webhooks> & friends",
    proposal_id: proposalId,
    state_before: state,
    state_after: applied ? { ...state, status: "released", version: 4 } : null,
    created_at: new Date().toISOString(),
  };
}

/** Writes only the outbox rows of `event` (no audit event, no order), as a committed change would; returns them. */
export async function writeOutboxRows(
  event: NewAuditEvent,
  destinations: readonly Destination[] = ["approvals", "downstream"],
): Promise<OutboxEvent[]> {
  const writer = recordingWriter(destinations);
  await batchWithOutbox(env.DB, writer, [], event);
  return writer.handedOff;
}

export async function outboxRow(eventId: string): Promise<OutboxRow> {
  const row = await readOutboxRow(env.DB, eventId);
  if (!row) throw new Error(`no outbox row ${eventId}`);
  return row;
}

export function messageFor(event: Pick<OutboxEvent, "event_id" | "account">): OutboxMessage {
  return { event_id: event.event_id, account: event.account };
}

let messageNumber = 0;

/** What the handler did with a batch. getQueueResult does not keep retry delays, so they are recorded here. */
export interface BatchOutcome {
  readonly ids: string[];
  readonly acked: string[];
  readonly retried: { id: string; delaySeconds: number | undefined }[];
  /** Set when the whole batch was retried. */
  readonly retriedAll: { delaySeconds: number | undefined } | undefined;
  readonly result: QueueResult;
}

/**
 * One batch of these messages through the Worker's queue handler, as `queue`
 * (the outbox queue by default) delivers it, with `vars` over the test env.
 */
export async function runQueue(
  messages: readonly { body: unknown; attempts?: number }[],
  vars: Record<string, string> = {},
  queue: string = OUTBOX_QUEUE_NAME,
  handler: (batch: MessageBatch<unknown>, env: Env) => Promise<void> = (batch, testEnv) => worker.queue(batch, testEnv),
): Promise<BatchOutcome> {
  const ids = messages.map(() => `msg-${++messageNumber}`);
  const batch = createMessageBatch(
    queue,
    messages.map((message, index) => ({
      id: ids[index] ?? "",
      timestamp: new Date(),
      attempts: message.attempts ?? 1,
      body: message.body,
    })),
  );
  const retried: { id: string; delaySeconds: number | undefined }[] = [];
  let retriedAll: { delaySeconds: number | undefined } | undefined;
  for (const message of batch.messages) {
    const retry = message.retry.bind(message);
    message.retry = (options?: QueueRetryOptions) => {
      retried.push({ id: message.id, delaySeconds: options?.delaySeconds });
      retry(options);
    };
  }
  const retryAll = batch.retryAll.bind(batch);
  batch.retryAll = (options?: QueueRetryOptions) => {
    retriedAll = { delaySeconds: options?.delaySeconds };
    retryAll(options);
  };
  const ctx = createExecutionContext();
  await handler(batch, { ...env, ...vars } as Env);
  const result = await getQueueResult(batch, ctx);
  return { ids, acked: result.explicitAcks, retried, retriedAll, result };
}

export const DEAD_LETTER_QUEUE = OUTBOX_DEAD_LETTER_QUEUE_NAME;
