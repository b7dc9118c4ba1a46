import { env } from "cloudflare:workers";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebhookBodySchema } from "../../src/notify/events";
import { connectClient } from "../helpers/mcp-client";
import { approve, confirm, proposalFor } from "../helpers/ops";
import { ACME_TOKEN } from "../helpers/tokens";
import { waitFor } from "../helpers/wait-for";
import { type Delivery, deliveriesUnder, outboxRow, receiverPath } from "../helpers/webhooks";

// The whole way, with nothing stubbed: this project's Worker has both webhooks
// aimed at the local receiver (vitest.config.ts). An operator proposes over
// MCP, an approver approves through the approval API, the operator confirms;
// each change's outbox rows go from the account's object through the local
// queue to the Worker's consumer, which POSTs them, signed.

let acme: Client;
beforeAll(async () => {
  acme = await connectClient(ACME_TOKEN, "outbox-end-to-end");
});
afterAll(() => acme.close());

/** Everything both destinations received about this proposal. */
async function receivedAbout(proposalId: string): Promise<Delivery[]> {
  const all = [
    ...(await deliveriesUnder(receiverPath("approvals", "ok", "queue"))),
    ...(await deliveriesUnder(receiverPath("downstream", "ok", "queue"))),
  ];
  return all.filter((delivery) => delivery.key?.includes(`/${proposalId}:`));
}

describe("webhooks through the local queue", () => {
  it("a proposal's life reaches approvers (created, approved, applied) and downstream (applied, order.updated), each once, signed", async () => {
    const { orderId, proposal } = await proposalFor(acme, "duplicate_order");
    await approve(proposal.proposal_id, "duplicate confirmed with the customer");
    expect((await confirm(acme, proposal.proposal_id)).status).toBe("applied");

    const received = await waitFor(
      () => receivedAbout(proposal.proposal_id),
      (deliveries) => deliveries.length >= 5,
    );
    const seen = received.map((delivery) => `${delivery.path.split("/")[1]} ${delivery.event_type}`).sort();
    expect(seen).toEqual([
      "approvals proposal.applied",
      "approvals proposal.approved",
      "approvals proposal.created",
      "downstream order.updated",
      "downstream proposal.applied",
    ]);
    expect(received.every((delivery) => delivery.verified && delivery.status === 200 && !delivery.repeat)).toBe(true);
    expect(new Set(received.map((delivery) => delivery.key)).size).toBe(5);
    // webhook-id is the body's id.
    expect(received.every((delivery) => delivery.key === (delivery.body as { id?: unknown }).id)).toBe(true);

    const created = received.find((delivery) => delivery.event_type === "proposal.created");
    const body = WebhookBodySchema.parse(created?.body);
    expect(body).toMatchObject({
      account: "acme",
      data: { proposal_id: proposal.proposal_id, order_id: orderId, approval_url: proposal.approval_url },
    });
    expect(body.text).toContain(proposal.approval_url);
    const updated = WebhookBodySchema.parse(received.find((delivery) => delivery.event_type === "order.updated")?.body);
    expect(updated.data).toMatchObject({ order_id: orderId, order_version: 2 });

    for (const delivery of received) {
      const row = await waitFor(
        () => outboxRow(delivery.key ?? ""),
        (stored) => stored.delivered_at !== null,
      );
      expect(row).toMatchObject({ attempts: 1, last_status: 200 });
      expect(row.enqueued_at).not.toBeNull();
    }
  });

  it("nothing is written or sent for an account's reads", async () => {
    const before = (await env.DB.prepare("SELECT count(*) AS n FROM outbox").first<{ n: number }>())?.n;
    await acme.callTool({ name: "list_order_exceptions", arguments: {} });
    expect((await env.DB.prepare("SELECT count(*) AS n FROM outbox").first<{ n: number }>())?.n).toBe(before);
  });
});
