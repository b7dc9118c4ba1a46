/**
 * One reading of a Content-Type header for every place that looks at one (RFC 9110 8.3.1): the type and subtype
 * compare case-insensitively, whitespace around them and around each parameter is optional, a parameter's name is
 * case-insensitive and its value may be quoted. A check written as `startsWith("application/...")` read
 * `Application/X-WWW-Form-Urlencoded` as another type, while the OAuth library behind it read it as a form, and the
 * token endpoint's own checks were skipped.
 */

export interface MediaType {
  /** `type/subtype`, lower-cased. */
  readonly essence: string;
  /** Parameter names lower-cased; values as sent, unquoted. */
  readonly parameters: ReadonlyMap<string, string>;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function unquoted(value: string): string {
  if (!value.startsWith('"') || !value.endsWith('"') || value.length < 2) return value;
  return value.slice(1, -1).replace(/\\(.)/g, "$1");
}

/** The header's media type, or undefined when there is none or it is not `type/subtype`. */
export function parseMediaType(header: string | null | undefined): MediaType | undefined {
  if (header === null || header === undefined) return undefined;
  const [head = "", ...rest] = header.split(";");
  const [type = "", subtype = "", ...extra] = head.trim().split("/");
  if (extra.length > 0 || !TOKEN.test(type) || !TOKEN.test(subtype)) return undefined;
  const parameters = new Map<string, string>();
  for (const part of rest) {
    const at = part.indexOf("=");
    if (at < 0) continue;
    const name = part.slice(0, at).trim().toLowerCase();
    if (TOKEN.test(name) && !parameters.has(name)) parameters.set(name, unquoted(part.slice(at + 1).trim()));
  }
  return { essence: `${type}/${subtype}`.toLowerCase(), parameters };
}

/** The lower-cased `type/subtype` of the header, or "" when it names none. */
export function mediaTypeEssence(header: string | null | undefined): string {
  return parseMediaType(header)?.essence ?? "";
}

export const FORM_MEDIA_TYPE = "application/x-www-form-urlencoded";
export const EVENT_STREAM_MEDIA_TYPE = "text/event-stream";

/** application/json and any `+json` type, the test hono/validator applies. */
export function isJsonMediaType(header: string | null | undefined): boolean {
  return /^application\/([\w.-]+\+)?json$/.test(mediaTypeEssence(header));
}

export function isMediaType(header: string | null | undefined, essence: string): boolean {
  return mediaTypeEssence(header) === essence;
}

/**
 * Why a text body in this header cannot be read as UTF-8, or undefined: every body here is decoded as UTF-8, so a
 * charset that names another encoding is refused rather than read wrongly.
 */
export function unreadableCharset(header: string | null | undefined): string | undefined {
  const charset = parseMediaType(header)?.parameters.get("charset")?.toLowerCase();
  if (charset === undefined || charset === "utf-8" || charset === "utf8" || charset === "us-ascii") return undefined;
  return `charset=${charset.slice(0, 40)} is not read here; send UTF-8`;
}
