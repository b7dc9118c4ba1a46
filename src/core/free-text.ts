/**
 * Free text a person will read (a cancel reason, an approver's reason, an address): no control characters and no
 * bidirectional formatting characters. A cancel reason with U+202E (and a NUL) was accepted, and the approval page
 * drew the rest of the server's rationale reversed around it. Tab and line breaks are text; the rest of C0 and C1
 * is not, and the bidi embeddings, overrides, isolates and marks (UAX #9) only ever rearrange what a reader sees.
 */
import type { z } from "zod/v4";

function isUnsafe(code: number): boolean {
  if (code === 0x09 || code === 0x0a || code === 0x0d) return false;
  return (
    code < 0x20 ||
    (code >= 0x7f && code <= 0x9f) ||
    code === 0x061c ||
    code === 0x200e ||
    code === 0x200f ||
    (code >= 0x202a && code <= 0x202e) ||
    (code >= 0x2066 && code <= 0x2069)
  );
}

/** The first control or bidirectional formatting character of `text`, as U+XXXX, or undefined. */
export function unsafeCharacterIn(text: string): string | undefined {
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    if (isUnsafe(code)) return `U+${code.toString(16).toUpperCase().padStart(4, "0")}`;
  }
  return undefined;
}

/** `text`, each control or bidirectional formatting character shown as [U+XXXX]: for pages showing stored text. */
export function withUnsafeShown(text: string): string {
  return Array.from(text, (char) => {
    const code = char.codePointAt(0) ?? 0;
    return isUnsafe(code) ? `[U+${code.toString(16).toUpperCase().padStart(4, "0")}]` : char;
  }).join("");
}

/** The schema, refusing text with a control or bidirectional formatting character, naming the first one. */
export function readableText<S extends z.ZodString>(schema: S): S {
  return schema.superRefine((text, ctx) => {
    const found = unsafeCharacterIn(text);
    if (found)
      ctx.addIssue({
        code: "custom",
        message: `must not contain control or bidirectional formatting characters (found ${found})`,
      });
  }) as S;
}
