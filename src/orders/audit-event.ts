import { z } from "zod/v4";
import type { AuditEventFields } from "../audit/event-fields";
import type { OrderState } from "./order-state";

/** Who wrote an audit event: an operator's tool call, an approver's decision, or the server itself. */
export const ActorKindSchema = z.enum(["operator", "approver", "system"]);
type ActorKind = z.infer<typeof ActorKindSchema>;

/**
 * One entry of the append-only audit trail as the domain writes it: who did
 * what to which order, when, why, and the state before and after. The id is
 * deterministic per state change and unique within the account. The fields
 * are the audit trail's one list (audit/event-fields.ts).
 */
export type NewAuditEvent = Omit<AuditEventFields<OrderState | null>, "actor_kind"> & {
  readonly actor_kind: ActorKind;
};

/** The same event as an account-scoped caller hands it over: the account comes from the scope. */
export type AccountAuditEvent = Omit<NewAuditEvent, "account">;
