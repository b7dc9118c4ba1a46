/**
 * The two export formats. NDJSON is exact: one event per line with its seal,
 * the states as JSON, so the chain can be recomputed from the file. CSV is
 * for reading in a spreadsheet (RFC 4180, CRLF line ends).
 */
import { AUDIT_EVENT_FIELDS } from "../../audit/event-fields";
import type { ExportedEvent } from "../../store/export-sealed-events";

/** Each event's fields between its place in the chain and its seal. */
const EXPORT_COLUMNS = [
  "seq",
  ...AUDIT_EVENT_FIELDS,
  "prev_hash",
  "hash",
] as const satisfies readonly (keyof ExportedEvent)[];

export function ndjsonLine(event: ExportedEvent): string {
  const row: Record<string, unknown> = {};
  for (const column of EXPORT_COLUMNS) row[column] = event[column] ?? null;
  return `${JSON.stringify(row)}\n`;
}

/** A spreadsheet runs a cell starting with one of these as a formula; free text (a reason) must not become one. */
const FORMULA_START = /^[=+\-@\t\r]/;

function csvCell(value: unknown): string {
  let text =
    value === null || value === undefined
      ? ""
      : typeof value === "string"
        ? value
        : typeof value === "number"
          ? String(value)
          : JSON.stringify(value);
  if (FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) || text !== text.trim() ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvHeader(): string {
  return `${EXPORT_COLUMNS.join(",")}\r\n`;
}

export function csvLine(event: ExportedEvent): string {
  return `${EXPORT_COLUMNS.map((column) => csvCell(event[column])).join(",")}\r\n`;
}
