import type { OrderState } from "./order-state";

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
  readonly actor_kind: "operator" | "approver" | "system";
  readonly actor: string;
  readonly reason: string;
  readonly proposal_id: string | null;
  readonly state_before: OrderState | null;
  readonly state_after: OrderState | null;
  readonly created_at: string;
}

/** The same event as an account-scoped caller hands it over: the account comes from the scope. */
export type AccountAuditEvent = Omit<NewAuditEvent, "account">;
