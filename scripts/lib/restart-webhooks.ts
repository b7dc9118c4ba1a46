// The restart test's webhook receiver. Every first delivery of an event is
// answered 500, so each event waits 10 s in the local queue for its retry;
// a crash in that window takes the queue's messages with it (a local queue
// does not outlive `wrangler dev`). After the restart the cron drain, run by
// hand through `--test-scheduled`, must notice the lost messages and hand the
// events over again, so each arrives, verified, exactly once with a 200.
import type { DevServer } from "./dev-server.ts";
import { type Delivery, startWebhookReceiver, type WebhookReceiver } from "./webhook-receiver.ts";

const SECRET = "restart-approvals-webhook-secret-0123456789";
/** How long past a retry's due time the drain waits before it takes the message as lost: short, so the test sees it. */
const REDRIVE_SECONDS = 10;

export interface CrashReceiver {
  readonly receiver: WebhookReceiver;
  /** `wrangler dev --var` settings: approvers' webhooks to the receiver, and the short redrive. */
  readonly vars: Readonly<Record<string, string>>;
  /** `wrangler dev` arguments: the scheduled handler reachable over HTTP, to run the drain. */
  readonly args: readonly string[];
}

export async function startCrashReceiver(): Promise<CrashReceiver> {
  const receiver = await startWebhookReceiver({ approvals: SECRET });
  return {
    receiver,
    vars: {
      NOTIFY_WEBHOOK_URL: `${receiver.url}/approvals/fail-once/restart`,
      NOTIFY_WEBHOOK_SECRET: SECRET,
      OUTBOX_REDRIVE_SECONDS: String(REDRIVE_SECONDS),
    },
    args: ["--test-scheduled"],
  };
}

/** The deliveries of one proposal's events, by event type. */
function deliveriesOf(receiver: WebhookReceiver, proposalId: string): Map<string, Delivery[]> {
  const byType = new Map<string, Delivery[]>();
  for (const delivery of receiver.deliveries) {
    if (!delivery.key?.includes(`/${proposalId}:`) || delivery.event_type === null) continue;
    byType.set(delivery.event_type, [...(byType.get(delivery.event_type) ?? []), delivery]);
  }
  return byType;
}

const delivered = (attempts: readonly Delivery[] | undefined) =>
  (attempts ?? []).filter((delivery) => delivery.status === 200 && delivery.verified).length;

type Check = (label: string, condition: boolean, detail?: string) => void;

/**
 * Runs the drain every 2 s on the restarted server until every event in
 * `types` has been delivered, or a minute has passed; then checks that each
 * was answered 500 once before the crash and delivered exactly once after it.
 */
export async function checkDeliveredAfterCrash(
  server: DevServer,
  { receiver }: CrashReceiver,
  proposalId: string,
  types: readonly string[],
  check: Check,
): Promise<void> {
  const deadline = Date.now() + 60_000;
  const allDelivered = () => types.every((type) => delivered(deliveriesOf(receiver, proposalId).get(type)) >= 1);
  while (!allDelivered() && Date.now() < deadline) {
    await fetch(`${server.url}/__scheduled?cron=*+*+*+*+*`).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
  // A moment more, so a second copy on its way would be seen.
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const byType = deliveriesOf(receiver, proposalId);
  const summary = types
    .map((type) => `${type}: ${(byType.get(type) ?? []).map((delivery) => delivery.status).join(" ")}`)
    .join("; ");
  check(
    "webhooks whose retry was pending at the crash still arrive: the drain hands the lost messages over again, each delivered once, signed",
    types.every((type) => {
      const attempts = byType.get(type) ?? [];
      return (
        attempts[0]?.status === 500 &&
        delivered(attempts) === 1 &&
        attempts.filter((delivery) => delivery.status === 200 && !delivery.repeat).length === 1
      );
    }),
    summary,
  );
}
