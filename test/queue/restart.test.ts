import { createScheduledController } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { waitFor } from "../helpers/wait-for";
import { deliveriesUnder, outboxRow, proposalAuditEvent, receiverPath, writeOutboxRows } from "../helpers/webhooks";

// A Worker that stops between the commit and the hand-off to the queue: the
// rows are committed and nobody sends them. The cron trigger's drain finds
// them and hands them to the real local queue, whose consumer delivers them.

describe("the drain on the cron trigger, through the local queue", () => {
  it("delivers rows that were committed but never handed to the queue, each once", async () => {
    const rows = await writeOutboxRows(proposalAuditEvent("resolution_applied"));
    expect(rows).toHaveLength(3);
    // Committed and never handed to the queue: no message exists that could deliver them, so only the drain can.
    for (const row of rows) expect(await outboxRow(row.event_id)).toMatchObject({ enqueued_at: null, attempts: 0 });
    const keys = new Set(rows.map((row) => row.event_id));
    const mine = async () =>
      [
        ...(await deliveriesUnder(receiverPath("approvals", "ok", "queue"))),
        ...(await deliveriesUnder(receiverPath("downstream", "ok", "queue"))),
      ].filter((d) => keys.has(d.key ?? ""));

    // The next cron tick, after the hand-off's grace.
    await worker.scheduled(createScheduledController({ scheduledTime: Date.now() + 31_000, cron: "* * * * *" }), env);
    const received = await waitFor(mine, (deliveries) => deliveries.length >= 3);
    expect(received.map((d) => d.key).sort()).toEqual([...keys].sort());
    expect(received.every((d) => d.verified && d.status === 200 && !d.repeat)).toBe(true);
    for (const row of rows) {
      const stored = await waitFor(
        () => outboxRow(row.event_id),
        (current) => current.delivered_at !== null,
      );
      // Handed over by the drain, the only thing that could.
      expect(stored.enqueued_at).not.toBeNull();
    }
  });
});
