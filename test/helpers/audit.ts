import { env } from "cloudflare:workers";
import type { NewAuditEvent } from "../../src/orders/audit-event";
import { insertAuditEvent } from "../../src/store/audit-events";

/** Plain "note" events on one acme order at the given times, written straight to D1 as any writer would. */
export async function insertNotes(
  orderId: string,
  times: readonly string[],
  overrides: Partial<NewAuditEvent> = {},
): Promise<string[]> {
  const eventIds = times.map((_, i) => `${orderId}:note-${String(i).padStart(4, "0")}`);
  await env.DB.batch(
    times.map((at, i) =>
      insertAuditEvent(env.DB, {
        event_id: eventIds[i] ?? "",
        account: "acme",
        order_id: orderId,
        event_type: "note",
        actor_kind: "operator",
        actor: "Ada",
        reason: `note ${i}`,
        proposal_id: null,
        state_before: null,
        state_after: null,
        created_at: at,
        ...overrides,
      }),
    ),
  );
  return eventIds;
}
