/**
 * Paging through one order's audit log, oldest first. A cursor names the last
 * event of the previous page by its time and its place in the trail, so pages
 * neither skip nor repeat events that share a timestamp, and an event written
 * while someone pages through appears on a later page instead of shifting them.
 */
import { z } from "zod/v4";
import { base64url, fromBase64url } from "../core/encoding";

export const AUDIT_PAGE_DEFAULT = 50;
export const AUDIT_PAGE_MAX = 200;

interface AuditCursor {
  readonly at: string;
  readonly position: number;
}

export interface AuditPage {
  readonly after: AuditCursor | null;
  readonly limit: number;
}

const CursorBody = z.tuple([z.string().min(1).max(64), z.number().int().nonnegative()]);

export function encodeAuditCursor(cursor: AuditCursor): string {
  return base64url(new TextEncoder().encode(JSON.stringify([cursor.at, cursor.position])));
}

/** undefined when the text is not a cursor this server handed out. */
export function decodeAuditCursor(text: string): AuditCursor | undefined {
  try {
    const parsed = CursorBody.safeParse(JSON.parse(new TextDecoder().decode(fromBase64url(text))));
    return parsed.success ? { at: parsed.data[0], position: parsed.data[1] } : undefined;
  } catch {
    return undefined;
  }
}
