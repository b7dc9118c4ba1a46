/**
 * Audit events and seals on the scratch database (./migrations), for the
 * chain tests: the tampering tests drop the append-only triggers, which no
 * other test may ever see. Apply the migrations to it before use.
 */

import type { ChainHead } from "../../src/audit/chain";
import type { NewAuditEvent } from "../../src/orders/audit-event";
import { insertAuditEvent } from "../../src/store/audit-events";
import { sealAuditTrail } from "../../src/store/audit-seal";
import { scratchDb as db } from "./migrations";

let counter = 0;
export function freshAccount(): string {
  return `chain-${crypto.randomUUID().slice(0, 8)}`;
}

export function event(account: string, overrides: Partial<NewAuditEvent> = {}): NewAuditEvent {
  counter++;
  return {
    event_id: `ORD-${counter}:received`,
    account,
    order_id: `ORD-${counter}`,
    event_type: "order_received",
    actor_kind: "operator",
    actor: "Ada Ops",
    reason: `test event ${counter}`,
    proposal_id: null,
    state_before: null,
    state_after: { status: "accepted", version: 1 } as unknown as NewAuditEvent["state_after"],
    created_at: new Date(Date.UTC(2026, 0, 1, 0, 0, counter)).toISOString(),
    ...overrides,
  };
}

export async function record(...events: NewAuditEvent[]): Promise<void> {
  for (const e of events) await insertAuditEvent(db, e).run();
}

export async function seal(account: string, anchor: ChainHead | null = null) {
  const sealed = await sealAuditTrail(db, account, { anchor, now: new Date() });
  if (!sealed.ok) throw new Error(sealed.error.message);
  return sealed.value;
}
