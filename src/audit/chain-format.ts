/**
 * How one link of the audit trail's hash chain is hashed: seal `seq` holds
 * hash = SHA-256(prev_hash + "\n" + canonical JSON of the event), where
 * prev_hash is the hash of seal seq-1 (GENESIS_HASH, 64 zeros, for seq 1).
 * The sealer (store/audit-seal.ts, through chain.ts) writes with it, and the
 * checks in chain-check.ts recompute with it.
 *
 * `npm run audit:verify` loads the chain's files in Node as they are (see
 * chain-check.ts), so this imports only core/encoding.ts, which imports
 * nothing, by its name with the .ts extension.
 */
import { sha256Hex } from "../core/encoding.ts";

/** Part of every hashed event, so a future format can never be mistaken for this one. */
const CHAIN_FORMAT = 1;

/** The sealed content of one event, with its states as JSON values. */
export interface ChainEventContent {
  readonly account: string;
  readonly event_id: string;
  readonly order_id: string;
  readonly event_type: string;
  readonly actor_kind: string;
  readonly actor: string;
  readonly reason: string;
  readonly proposal_id: string | null;
  readonly state_before: unknown;
  readonly state_after: unknown;
  readonly created_at: string;
}

/** JSON with object keys sorted at every level (RFC 8785 for the strings, integers and nulls an event holds). */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

export function chainHash(prevHash: string, seq: number, event: ChainEventContent): Promise<string> {
  const content = {
    format: CHAIN_FORMAT,
    seq,
    account: event.account,
    event_id: event.event_id,
    order_id: event.order_id,
    event_type: event.event_type,
    actor_kind: event.actor_kind,
    actor: event.actor,
    reason: event.reason,
    proposal_id: event.proposal_id,
    state_before: event.state_before ?? null,
    state_after: event.state_after ?? null,
    created_at: event.created_at,
  };
  return sha256Hex(`${prevHash}\n${canonicalJson(content)}`);
}

/** States are stored as JSON text; text that no longer parses is hashed as the string it is. */
function storedState(text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** An audit_events row as stored: states are JSON text. */
export interface StoredEventRow {
  account: string;
  event_id: string;
  order_id: string;
  event_type: string;
  actor_kind: string;
  actor: string;
  reason: string;
  proposal_id: string | null;
  state_before: string | null;
  state_after: string | null;
  created_at: string;
}

export function chainContentOf(row: StoredEventRow): ChainEventContent {
  return {
    account: row.account,
    event_id: row.event_id,
    order_id: row.order_id,
    event_type: row.event_type,
    actor_kind: row.actor_kind,
    actor: row.actor,
    reason: row.reason,
    proposal_id: row.proposal_id,
    state_before: storedState(row.state_before),
    state_after: storedState(row.state_after),
    created_at: row.created_at,
  };
}
