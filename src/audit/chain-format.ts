/**
 * How one link of the audit trail's hash chain is hashed: seal `seq` holds
 * hash = SHA-256(prev_hash + "\n" + canonical JSON of the event), where
 * prev_hash is the hash of seal seq-1 (GENESIS_HASH, 64 zeros, for seq 1).
 * The sealer (store/audit-seal.ts, through chain.ts) writes with it, and the
 * checks in chain-check.ts recompute with it.
 *
 * `npm run audit:verify` loads the chain's files in Node as they are (see
 * chain-check.ts), so this imports only event-fields.ts and core/encoding.ts,
 * which import nothing, by their names with the .ts extension.
 */
import { sha256Hex } from "../core/encoding.ts";
import { AUDIT_EVENT_FIELDS, type AuditEventFields, isStateField } from "./event-fields.ts";

/** Part of every hashed event, so a future format can never be mistaken for this one. */
const CHAIN_FORMAT = 1;

/** The sealed content of one event, with its states as JSON values. */
export type ChainEventContent = AuditEventFields<unknown>;

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

/**
 * Every event field is hashed, beside the format and the link's seq. A state
 * that is absent is hashed as null; any other absent field (a line of an
 * export that lacks it) is left out.
 */
export function chainHash(prevHash: string, seq: number, event: ChainEventContent): Promise<string> {
  const content: Record<string, unknown> = { format: CHAIN_FORMAT, seq };
  for (const field of AUDIT_EVENT_FIELDS) content[field] = isStateField(field) ? (event[field] ?? null) : event[field];
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
export type StoredEventRow = AuditEventFields<string | null>;

export function chainContentOf(row: StoredEventRow): ChainEventContent {
  const content: Record<string, unknown> = {};
  for (const field of AUDIT_EVENT_FIELDS) content[field] = isStateField(field) ? storedState(row[field]) : row[field];
  return content as ChainEventContent;
}
