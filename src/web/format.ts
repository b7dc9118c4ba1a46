/**
 * Numbers and times as an approver reads them. Pure: "now" is always passed
 * in, so the server renders "in 12 min" itself and the pages need no script.
 */

/** `$66.00`; another currency gets its own symbol or code. */
export function money(cents: number, currency = "USD"): string {
  try {
    return new Intl.NumberFormat("en-US", { style: "currency", currency }).format(cents / 100);
  } catch {
    // Not an ISO currency code: still show the amount, never fail the page.
    return `${(cents / 100).toFixed(2)} ${currency}`;
  }
}

/** `2026-12-01 06:15:06 UTC`: the exact time, for the hover text. */
export function absoluteTime(iso: string): string {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return iso;
  return `${new Date(ms).toISOString().slice(0, 19).replace("T", " ")} UTC`;
}

/** `45 s`, `12 min`, `1 h 5 min`, `3 days`: a span, rounded to what a person cares about. */
export function span(ms: number): string {
  const seconds = Math.round(Math.abs(ms) / 1000);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) {
    const rest = minutes % 60;
    return rest === 0 || hours >= 10 ? `${hours} h` : `${hours} h ${rest} min`;
  }
  return `${Math.round(hours / 24)} days`;
}

/** `in 12 min`, `3 min ago`, `just now`, relative to `now`. */
export function relativeTime(iso: string, now: Date): string {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return iso;
  const delta = ms - now.getTime();
  if (Math.abs(delta) < 45_000) return delta > 0 ? "in under a minute" : "just now";
  return delta > 0 ? `in ${span(delta)}` : `${span(delta)} ago`;
}

/** `12.5 ms`, `1.2 s`. */
export function latency(ms: number): string {
  if (ms >= 1000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.round(ms * 10) / 10} ms`;
}

interface TextPiece {
  readonly text: string;
  /** A hyphenated token (an order, SKU or proposal id): shown unbroken. */
  readonly unbroken: boolean;
}

/**
 * Splits text so hyphenated tokens can be kept on one line: a browser may
 * otherwise wrap `ORD-1008` after its hyphen, which reads as two values.
 */
export function piecesOf(text: string): TextPiece[] {
  const pieces: TextPiece[] = [];
  let last = 0;
  for (const match of text.matchAll(/[\p{L}\p{N}_.]+(?:-[\p{L}\p{N}_.]+)+/gu)) {
    const start = match.index;
    if (start > last) pieces.push({ text: text.slice(last, start), unbroken: false });
    pieces.push({ text: match[0], unbroken: true });
    last = start + match[0].length;
  }
  if (last < text.length) pieces.push({ text: text.slice(last), unbroken: false });
  return pieces;
}
