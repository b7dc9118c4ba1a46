import { exports } from "cloudflare:workers";
import { expect } from "vitest";
import type { NewAuditEvent } from "../../src/orders/audit-event";
import { insertNotes } from "./audit";
import { insertFreshOrder } from "./fresh-orders";
import { ACME_APPROVER_TOKEN } from "./tokens";

// The audit trail's export as its tests read it: GET /api/audit, its NDJSON
// and CSV bodies, and orders with events at chosen times to export.

/** One line of an NDJSON export. */
export interface ExportedRow {
  seq: number;
  created_at: string;
  account: string;
  order_id: string;
  event_id: string;
  event_type: string;
  actor_kind: string;
  actor: string;
  reason: string;
  proposal_id: string | null;
  state_before: unknown;
  state_after: unknown;
  prev_hash: string;
  hash: string;
}

/** GET /api/audit with an approver token (or another credential, or none). */
export function exportAudit(query = "", token: string | null = ACME_APPROVER_TOKEN, method = "GET"): Promise<Response> {
  const headers: Record<string, string> = token === null ? {} : { authorization: `Bearer ${token}` };
  return exports.default.fetch(`http://localhost/api/audit${query}`, { method, headers });
}

/** An export's body as text: workerd warns on text() of a body whose media type is not text, as NDJSON's is. */
export async function exportedText(response: Response): Promise<string> {
  return new TextDecoder().decode(await response.arrayBuffer());
}

/** The rows of a 200 NDJSON export. */
export async function ndjson(response: Response): Promise<ExportedRow[]> {
  expect(response.status).toBe(200);
  const text = await exportedText(response);
  return text === ""
    ? []
    : text
        .trimEnd()
        .split("\n")
        .map((line) => JSON.parse(line) as ExportedRow);
}

/** A fresh order with note events at the given times. */
export async function orderWithEvents(times: string[], overrides: Partial<NewAuditEvent> = {}): Promise<string> {
  const orderId = await insertFreshOrder({ exception: null, originEvent: false });
  await insertNotes(orderId, times, overrides);
  return orderId;
}

/** A minimal RFC 4180 reader, to check what a spreadsheet would read back. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted && ch === '"' && text[i + 1] === '"') {
      cell += '"';
      i++;
    } else if (quoted && ch === '"') {
      quoted = false;
    } else if (quoted) {
      cell += ch;
    } else if (ch === '"') {
      quoted = true;
    } else if (ch === ",") {
      row.push(cell);
      cell = "";
    } else if (ch === "\r" && text[i + 1] === "\n") {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = "";
      i++;
    } else {
      cell += ch;
    }
  }
  return rows;
}
