import { z } from "zod/v4";
import type { Webhooks } from "../config/webhooks";
import { ActorKindSchema, type NewAuditEvent } from "../orders/audit-event";
import { APPLIED_EVENT_TYPES } from "../orders/change-kinds";
import { OrderStateSchema } from "../orders/order-state";
import { type WebhookEventType, WebhookEventTypeSchema } from "./event-types";
import { webhookText } from "./text";

/**
 * The event catalogue: which webhook events each audit event becomes, and the
 * body every delivery of one carries. The mapping is one pure function, so
 * every writer of a proposal change (the proposal service, the apply, an expiry sweep)
 * announces it the same way.
 */

/** Where an event goes: the approvers' channel, or downstream systems. */
export type Destination = keyof Webhooks;

type Route = { readonly destination: Destination; readonly type: WebhookEventType };

/** An applied change is news for approvers and the one thing downstream systems act on. */
const APPLIED: readonly Route[] = [
  { destination: "approvals", type: "proposal.applied" },
  { destination: "downstream", type: "proposal.applied" },
  { destination: "downstream", type: "order.updated" },
];

/** Audit event types that announce something; every other type (order intake, seeding) stays internal. */
const CATALOGUE: Readonly<Record<string, readonly Route[]>> = {
  proposal_created: [{ destination: "approvals", type: "proposal.created" }],
  proposal_approved: [{ destination: "approvals", type: "proposal.approved" }],
  // One approval of two (four eyes): the other approvers are the ones who need to hear.
  proposal_approval_recorded: [{ destination: "approvals", type: "proposal.approval_recorded" }],
  proposal_rejected: [{ destination: "approvals", type: "proposal.rejected" }],
  proposal_superseded: [{ destination: "approvals", type: "proposal.superseded" }],
  proposal_expired: [{ destination: "approvals", type: "proposal.expired" }],
  ...Object.fromEntries(APPLIED_EVENT_TYPES.map((type) => [type, APPLIED])),
};

/**
 * The JSON body of every delivery: the structured event, and a `text` line
 * beside it, so a Slack incoming webhook can be the receiver as it is.
 */
export const WebhookBodySchema = z.object({
  id: z.string().describe("the event id, also sent as the webhook-id header"),
  type: WebhookEventTypeSchema,
  account: z.string(),
  created_at: z.string().describe("when the change happened (ISO 8601)"),
  text: z.string().describe("one readable line, for Slack and similar chat webhooks"),
  data: z.object({
    proposal_id: z.string().nullable(),
    order_id: z.string(),
    actor_kind: ActorKindSchema,
    actor: z.string(),
    reason: z.string(),
    approval_url: z.string().nullable(),
    order_version: z
      .number()
      .int()
      .nullable()
      .describe("the order's version after the change; null when the order did not change"),
    state_before: OrderStateSchema.nullable(),
    state_after: OrderStateSchema.nullable(),
  }),
});
export type WebhookBody = z.infer<typeof WebhookBodySchema>;

/** One outbox row as the writer inserts it. */
export interface OutboxEvent {
  /** The idempotency key: the same change and destination always give the same id. */
  readonly event_id: string;
  readonly account: string;
  readonly destination: Destination;
  readonly event_type: WebhookEventType;
  /** The JSON body, exactly as every delivery sends and signs it. */
  readonly payload: string;
  readonly created_at: string;
}

export interface OutboxContext {
  /** The destinations that have a webhook configured; the others get no rows. */
  readonly destinations: readonly Destination[];
  readonly approvalUrl: (proposalId: string) => string;
}

/**
 * Deterministic per audit event, destination and type. Account ids hold no
 * slash, and the destination and type are fixed words, so the id reads back
 * unambiguously and is unique across accounts for a receiver that takes them all.
 */
function eventId(event: NewAuditEvent, route: Route): string {
  return `${event.account}/${event.event_id}/${route.destination}/${route.type}`;
}

/** The outbox rows that announce this audit event, one per configured destination and type. */
export function outboxEventsFor(event: NewAuditEvent, context: OutboxContext): OutboxEvent[] {
  const routes = (CATALOGUE[event.event_type] ?? []).filter((route) =>
    context.destinations.includes(route.destination),
  );
  return routes.map((route) => {
    const id = eventId(event, route);
    const approvalUrl = event.proposal_id === null ? null : context.approvalUrl(event.proposal_id);
    const body: WebhookBody = {
      id,
      type: route.type,
      account: event.account,
      created_at: event.created_at,
      text: webhookText(route.type, event, approvalUrl),
      data: {
        proposal_id: event.proposal_id,
        order_id: event.order_id,
        actor_kind: event.actor_kind,
        actor: event.actor,
        reason: event.reason,
        approval_url: approvalUrl,
        order_version: event.state_after?.version ?? null,
        state_before: event.state_before,
        state_after: event.state_after,
      },
    };
    return {
      event_id: id,
      account: event.account,
      destination: route.destination,
      event_type: route.type,
      payload: JSON.stringify(body),
      created_at: event.created_at,
    };
  });
}
