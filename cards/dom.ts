/**
 * Building a card's DOM. Every value from a tool result reaches the page
 * through `h()`, which appends it as a text node or sets it as a plain
 * attribute: nothing from the data is ever parsed as HTML.
 */
import { hostContext } from "./host";

/** What `h()` appends: nodes and text; absent values (null, undefined, false) are skipped, arrays flattened. */
export type Child = Node | string | number | null | undefined | false | readonly Child[];
type Attributes = Readonly<Record<string, string | number | boolean | null | undefined>> | null;

function append(parent: Element, child: Child): void {
  if (child === null || child === undefined || child === false) return;
  if (Array.isArray(child)) {
    for (const inner of child as readonly Child[]) append(parent, inner);
    return;
  }
  parent.append(child instanceof Node ? child : String(child));
}

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes ?? {})) {
    if (value !== undefined && value !== null && value !== false) element.setAttribute(name, String(value));
  }
  for (const child of children) append(element, child);
  return element;
}

/**
 * Free text with its hyphenated tokens (ORD-1008, SKU-7720, ids) kept whole: a browser would break them after the
 * hyphen.
 */
export function unbroken(text: unknown): Child[] {
  const value = String(text ?? "");
  const parts: Child[] = [];
  let last = 0;
  for (const match of value.matchAll(/[\p{L}\p{N}_.]+(?:-[\p{L}\p{N}_.]+)+/gu)) {
    if (match.index > last) parts.push(value.slice(last, match.index));
    parts.push(h("span", { class: "nowrap" }, match[0]));
    last = match.index + match[0].length;
  }
  if (last < value.length) parts.push(value.slice(last));
  return parts;
}

export const mono = (id: Child) => h("span", { class: "mono" }, id);
export const badge = (text: string, tone?: string) => h("span", { class: `badge ${tone ?? ""}` }, text);

const locale = () => hostContext().locale || undefined;

export function money(cents: unknown, currency: string | undefined): string {
  if (typeof cents !== "number") return "";
  try {
    return new Intl.NumberFormat(locale(), { style: "currency", currency: currency || "USD" }).format(cents / 100);
  } catch {
    return `${(cents / 100).toFixed(2)} ${String(currency || "")}`;
  }
}

export function absolute(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return String(iso);
  try {
    return date.toLocaleString(locale(), {
      dateStyle: "medium",
      timeStyle: "short",
      timeZone: hostContext().timeZone || undefined,
    });
  } catch {
    return date.toISOString();
  }
}

const STEPS: readonly (readonly [Intl.RelativeTimeFormatUnit, number])[] = [
  ["day", 86_400_000],
  ["hour", 3_600_000],
  ["minute", 60_000],
];

export function relative(iso: string): string {
  const ms = new Date(iso).getTime() - Date.now();
  if (Number.isNaN(ms)) return String(iso);
  const [unit, size] = STEPS.find(([, step]) => Math.abs(ms) >= step) ?? ["minute", 60_000];
  const value = Math.round(ms / size);
  try {
    return new Intl.RelativeTimeFormat(locale(), { numeric: "auto" }).format(value, unit);
  } catch {
    return value < 0 ? `${-value} ${unit}s ago` : `in ${value} ${unit}s`;
  }
}

/** A time as "in 14 minutes", the date and time in its tooltip. */
export const when = (iso: string) => h("time", { datetime: iso, title: absolute(iso) }, relative(iso));
/** A time as its date and time, "in 14 minutes" in its tooltip. */
export const at = (iso: string) => h("time", { datetime: iso, title: relative(iso) }, absolute(iso));

export function duration(minutes: unknown): string {
  const m = Math.max(0, Math.round(Number(minutes) || 0));
  if (m < 60) return `${m} min`;
  if (m < 1440) return `${Math.floor(m / 60)} h${m % 60 ? ` ${m % 60} min` : ""}`;
  const hours = Math.floor(m / 60) % 24;
  return `${Math.floor(m / 1440)} d${hours ? ` ${hours} h` : ""}`;
}
