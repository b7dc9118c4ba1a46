/**
 * The fields of an audit event, listed once, in the order an export shows
 * them. The domain's event (orders/audit-event.ts), the stored row, what the
 * hash chain seals (chain-format.ts), the store's statements and the export's
 * columns are all built from this tuple.
 *
 * The chain hashes every field (CHAIN_FORMAT 1), so a field added here changes
 * what each new link covers while old links were hashed without it:
 * test/audit/event-fields.test.ts pins the list and a known hash, and a new
 * field needs a new chain format that still checks old links the old way.
 *
 * Imports nothing: `npm run audit:verify` loads this folder in Node as it is.
 */
export const AUDIT_EVENT_FIELDS = [
  "created_at",
  "account",
  "order_id",
  "event_id",
  "event_type",
  "actor_kind",
  "actor",
  "reason",
  "proposal_id",
  "state_before",
  "state_after",
] as const;

export type AuditEventField = (typeof AUDIT_EVENT_FIELDS)[number];

/** The fields that are not plain text: the states, and the proposal id, which events outside a proposal leave null. */
type NonTextFields<State> = { proposal_id: string | null; state_before: State; state_after: State };

/**
 * An audit event with its states as `State`: JSON text in a stored row, parsed
 * values in what the chain seals, order states in the domain.
 */
export type AuditEventFields<State> = {
  readonly [F in AuditEventField]: F extends keyof NonTextFields<State> ? NonTextFields<State>[F] : string;
};

/** The order's state before and after the event: JSON values, stored as JSON text. */
export function isStateField(field: AuditEventField): field is "state_before" | "state_after" {
  return field === "state_before" || field === "state_after";
}
