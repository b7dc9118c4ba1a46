import { z } from "zod/v4";

/** The kinds of webhook a receiver can get: which audit events announce them is events.ts, their words text.ts. */
export const WebhookEventTypeSchema = z.enum([
  "proposal.created",
  "proposal.approved",
  "proposal.approval_recorded",
  "proposal.rejected",
  "proposal.superseded",
  "proposal.expired",
  "proposal.applied",
  "order.updated",
]);
export type WebhookEventType = z.infer<typeof WebhookEventTypeSchema>;
