import { z } from "zod/v4";
import type { OrderState } from "./order-state";

/** Who wrote an audit event: an operator's tool call, an approver's decision, or the server itself. */
export const ActorKindSchema = z.enum(["operator", "approver", "system"]);
type ActorKind = z.infer<typeof ActorKindSchema>;

/**
 * One entry of the append-only audit trail as the domain writes it: who did
 * what to which order, when, why, and the state before and after. The id is
 * deterministic per state change and unique within the account.
 */
export interface NewAuditEvent {
  readonly event_id: string;
  readonly account: string;
  readonly order_id: string;
  readonly event_type: string;
  readonly actor_kind: ActorKind;
  readonly actor: string;
  readonly reason: string;
  readonly proposal_id: string | null;
  readonly state_before: OrderState | null;
  readonly state_after: OrderState | null;
  readonly created_at: string;
}

/** The same event as an account-scoped caller hands it over: the account comes from the scope. */
export type AccountAuditEvent = Omit<NewAuditEvent, "account">;
