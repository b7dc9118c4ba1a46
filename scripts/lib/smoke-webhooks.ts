// The smoke run's webhook receiver: a tiny server on this machine
// (webhook-receiver.ts) that the main `wrangler dev` delivers to, through its
// local queue, once NOTIFY_WEBHOOK_URL and DOWNSTREAM_WEBHOOK_URL point at it.
// After the operator story it checks what arrived: the proposal's creation as
// one webhook signed as Standard Webhooks says, which the standardwebhooks
// library accepts through the check docs/webhooks.md shows, and the rest of the
// story (approved, applied) for approvers and downstream.
import { loadDocumentedVerifiers } from "./documented-verifier.ts";
import { type Delivery, startWebhookReceiver, type WebhookReceiver } from "./webhook-receiver.ts";

/** The headers sent before Standard Webhooks, removed (CHANGELOG.md); as Node lowercases them. */
const REMOVED_HEADERS = ["x-order-ops-signature", "x-order-ops-timestamp", "idempotency-key"];

/** Approvers sign with a Standard Webhooks secret, downstream with one from before those (used as written). */
const SECRETS = {
  approvals: "whsec_c21va2UtYXBwcm92YWxzLWtleS1vZi0zMi1ieXRlcyE=",
  downstream: "smoke-downstream-webhook-secret",
};

export interface WebhookSink {
  readonly receiver: WebhookReceiver;
  /** The `wrangler dev --var` settings that aim both destinations at the receiver. */
  readonly vars: Readonly<Record<string, string>>;
}

export async function startWebhookSink(): Promise<WebhookSink> {
  const receiver = await startWebhookReceiver(SECRETS);
  return {
    receiver,
    vars: {
      NOTIFY_WEBHOOK_URL: `${receiver.url}/approvals/ok/smoke`,
      NOTIFY_WEBHOOK_SECRET: SECRETS.approvals,
      DOWNSTREAM_WEBHOOK_URL: `${receiver.url}/downstream/ok/smoke`,
      DOWNSTREAM_WEBHOOK_SECRET: SECRETS.downstream,
    },
  };
}

type Check = (label: string, condition: boolean, detail?: string) => void;

async function waitForDeliveries(
  receiver: WebhookReceiver,
  done: (deliveries: readonly Delivery[]) => boolean,
  timeoutMs: number,
): Promise<readonly Delivery[]> {
  const deadline = Date.now() + timeoutMs;
  while (!done(receiver.deliveries) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
  return receiver.deliveries;
}

/** The proposal the operator story made (the run's only one), as its proposal.created webhook names it. */
function proposalOf(delivery: Delivery | undefined): string | undefined {
  const id = (delivery?.body as { data?: { proposal_id?: unknown } } | undefined)?.data?.proposal_id;
  return typeof id === "string" ? id : undefined;
}

/** What the operator story (propose, approve, confirm) sent. */
export async function checkWebhooks({ receiver }: WebhookSink, check: Check): Promise<void> {
  const createdIn = (deliveries: readonly Delivery[]) =>
    deliveries.filter((delivery) => delivery.event_type === "proposal.created");
  const about = (deliveries: readonly Delivery[], proposalId: string | undefined) =>
    deliveries.filter((delivery) => proposalId !== undefined && delivery.key?.includes(`/${proposalId}:`));
  const storyDone = (deliveries: readonly Delivery[]) =>
    about(deliveries, proposalOf(createdIn(deliveries)[0])).length >= 5;
  const deliveries = await waitForDeliveries(receiver, storyDone, 20_000);
  const created = createdIn(deliveries);
  const [first] = created;
  const proposalId = proposalOf(first);
  const { verify } = await loadDocumentedVerifiers();
  const verifies = first !== undefined && verify(SECRETS.approvals, first.raw_body, first.headers);
  const otherSecretFails = first !== undefined && !verify(SECRETS.downstream, first.raw_body, first.headers);
  check(
    "proposing sends one proposal.created webhook through the local queue, signed as Standard Webhooks says: the standardwebhooks library (the check in docs/webhooks.md) accepts it, and refuses it under another secret",
    created.length === 1 &&
      first?.status === 200 &&
      verifies &&
      otherSecretFails &&
      first.key === (first.body as { id?: unknown }).id,
    first ? `webhook-id ${first.key}, webhook-signature ${first.signature?.slice(0, 12)}…` : "nothing arrived",
  );
  check(
    "no delivery carries the removed X-Order-Ops-Signature, X-Order-Ops-Timestamp or Idempotency-Key headers",
    first !== undefined && REMOVED_HEADERS.every((name) => first.headers[name] === undefined),
    first ? Object.keys(first.headers).join(", ") : "nothing arrived",
  );
  const arrived = about(deliveries, proposalId);
  const kinds = arrived.map((delivery) => `${delivery.path.split("/")[1]} ${delivery.event_type}`).sort();
  check(
    "approving and confirming reach approvers and downstream, each event once",
    JSON.stringify(kinds) ===
      JSON.stringify([
        "approvals proposal.applied",
        "approvals proposal.approved",
        "approvals proposal.created",
        "downstream order.updated",
        "downstream proposal.applied",
      ]) && arrived.every((delivery) => delivery.verified && !delivery.repeat),
    kinds.join(", "),
  );
}
