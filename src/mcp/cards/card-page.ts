import { ORDER_VOCABULARY } from "../../orders/labels";
import { PROPOSAL_STATUS_LABELS } from "../../proposals/status-labels";
import type { AppCard } from "../apps";

/**
 * The shell every card shares: a document with no external reference, the
 * ~40 lines of postMessage JSON-RPC the MCP Apps spec asks of a view (it needs
 * no SDK bundle), and small DOM and formatting helpers.
 *
 * Every value from a tool result reaches the page through `h()`, which appends
 * it as a text node or sets it as a plain attribute: nothing from the data is
 * ever parsed as HTML. The only request a card makes is `ui/open-link`; it never
 * calls a tool, so it can open the approval page but cannot approve or apply.
 *
 * The words are the approval app's (orders/labels.ts, proposals/status-labels.ts),
 * shipped in the document as data: `label()`, `humanizeText()` and
 * `changeLines()` below apply those tables the way the TypeScript functions of
 * the same names do, and the browser test compares their output.
 */

/** What the cards' runtime reads as LABELS. */
const VOCABULARY = { ...ORDER_VOCABULARY, status: PROPOSAL_STATUS_LABELS };

/** Bumped when a card's behaviour changes; hosts see it in ui/initialize. */
const CARD_VERSION = "1.1.0";

/**
 * The spec's restrictive default, repeated inside the document, so a host that
 * enforced less would still load nothing from anywhere.
 */
const CARD_CSP =
  "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; media-src 'self' data:; connect-src 'none'; frame-src 'none'; object-src 'none'; base-uri 'none'; form-action 'none'";

const STYLE = `
:root{color-scheme:light dark;--bg:var(--color-background-primary,light-dark(#fff,#1c1c1c));--bg2:var(--color-background-secondary,light-dark(#f5f5f4,#262626));--fg:var(--color-text-primary,light-dark(#1c1917,#f5f5f4));--muted:var(--color-text-secondary,light-dark(#57534e,#a8a29e));--line:var(--color-border-primary,light-dark(#e7e5e4,#3f3f46));--bad:var(--color-text-danger,light-dark(#b42318,#ff8a80));--warn:var(--color-text-warning,light-dark(#8a5300,#ffc266));--ok:var(--color-text-success,light-dark(#17663a,#7ee2a8));--info:var(--color-text-info,light-dark(#1d4ed8,#93b4ff));--radius:var(--border-radius-md,8px)}
html,body{margin:0;background:var(--bg);color:var(--fg);font:14px/1.45 var(--font-sans,system-ui,-apple-system,"Segoe UI",sans-serif)}
main{padding:12px 14px;overflow-wrap:break-word}
h1{font-size:16px;margin:0}h2{font-size:13px;margin:14px 0 6px;color:var(--muted);text-transform:uppercase;letter-spacing:.04em}
p{margin:6px 0}ul,ol{margin:0;padding:0;list-style:none}
.head{display:flex;flex-wrap:wrap;align-items:baseline;gap:4px 10px}
.muted{color:var(--muted)}.small{font-size:12px}.mono{font-family:var(--font-mono,ui-monospace,monospace);white-space:nowrap}
.nowrap,time{white-space:nowrap}
.badge{display:inline-block;border:1px solid currentColor;border-radius:999px;padding:0 7px;font-size:12px;font-weight:600;white-space:nowrap}
.bad{color:var(--bad)}.warn{color:var(--warn)}.ok{color:var(--ok)}.info{color:var(--info)}
.row{border-top:1px solid var(--line);padding:8px 0}.row:first-child{border-top:0}
.line{display:flex;flex-wrap:wrap;align-items:baseline;gap:2px 8px}
.note{background:var(--bg2);border-radius:var(--radius);padding:8px 10px;margin:8px 0}
dl{display:grid;grid-template-columns:minmax(90px,max-content) 1fr;gap:2px 12px;margin:0}dt{color:var(--muted)}dd{margin:0}
table{width:100%;border-collapse:collapse}th,td{text-align:left;vertical-align:top;padding:5px 6px;border-top:1px solid var(--line)}th{font-size:12px;color:var(--muted);font-weight:600}
th[scope=row]{width:1%;white-space:nowrap}
td.before{color:var(--muted)}
.timeline li{display:grid;grid-template-columns:minmax(84px,max-content) 1fr;gap:0 10px;padding:4px 0;border-left:2px solid var(--line);padding-left:10px}
button{font:inherit;font-weight:600;border:1px solid var(--info);color:var(--info);background:transparent;border-radius:var(--radius);padding:6px 12px;cursor:pointer}
button:focus-visible{outline:2px solid var(--info);outline-offset:2px}
`;

/** The bridge and helpers; `render(data)` comes from the card and returns one Node. */
const RUNTIME = `
"use strict";
const root = document.getElementById("card");
let nextId = 1;
let context = {};
const pending = new Map();
const handlers = {};
const post = (message) => window.parent.postMessage(Object.assign({ jsonrpc: "2.0" }, message), "*");
const notify = (method, params) => post({ method, params });
const request = (method, params) => new Promise((resolve, reject) => { const id = nextId++; pending.set(id, { resolve, reject }); post({ id, method, params }); });
window.addEventListener("message", (event) => {
  if (event.source !== window.parent) return;
  const m = event.data;
  if (!m || m.jsonrpc !== "2.0") return;
  if (m.method === undefined) { const p = pending.get(m.id); if (p) { pending.delete(m.id); if (m.error) p.reject(m.error); else p.resolve(m.result); } return; }
  const handler = has(handlers, m.method) ? handlers[m.method] : undefined;
  if (m.id === undefined) { if (handler) handler(m.params || {}); return; }
  if (handler) Promise.resolve(handler(m.params || {})).then((result) => post({ id: m.id, result: result || {} }));
  else post({ id: m.id, error: { code: -32601, message: "Method not found" } });
});
let lastSize = "";
const reportSize = () => {
  const box = document.documentElement.getBoundingClientRect();
  const size = { width: Math.ceil(box.width), height: Math.ceil(box.height) };
  const key = size.width + "x" + size.height;
  if (key !== lastSize) { lastSize = key; notify("ui/notifications/size-changed", size); }
};
const applyContext = (update) => {
  context = Object.assign({}, context, update);
  const variables = (context.styles && context.styles.variables) || {};
  for (const name of Object.keys(variables)) if (name.startsWith("--") && typeof variables[name] === "string") document.documentElement.style.setProperty(name, variables[name]);
  if (context.theme === "light" || context.theme === "dark") document.documentElement.style.colorScheme = context.theme;
};
function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) if (value !== undefined && value !== null && value !== false) el.setAttribute(name, String(value));
  for (const child of children.flat(Infinity)) if (child !== undefined && child !== null && child !== false) el.append(child instanceof Node ? child : String(child));
  return el;
}
const has = (table, key) => Boolean(table) && Object.prototype.hasOwnProperty.call(table, key);
/** orders/labels.ts humanize(): the fallback for a name without a label. */
const humanize = (name) => { const text = String(name == null ? "" : name); const spaced = text.replace(/_+/g, " ").trim(); return spaced === "" ? text : spaced.charAt(0).toUpperCase() + spaced.slice(1); };
const label = (kind, value) => (has(LABELS[kind], value) ? LABELS[kind][value] : humanize(value));
const lowerFirst = (text) => text.charAt(0).toLowerCase() + text.slice(1);
/** orders/labels.ts humanizeText(): known names inside free text become words; unknown ones (ids) stay. */
const humanizeText = (text) => String(text == null ? "" : text).replace(new RegExp(LABELS.patterns.nameInText, "g"), (name, offset) => (has(LABELS.anyName, name) ? (offset === 0 ? LABELS.anyName[name] : lowerFirst(LABELS.anyName[name])) : name));
const EXCEPTION_VALUE = new RegExp(LABELS.patterns.exceptionValue);
const ALLOCATION_VALUE = new RegExp(LABELS.patterns.allocationValue);
/** orders/labels.ts changeValueLines(): one before/after value of a change, in words, one line per entry. */
function changeLines(field, value) {
  const text = String(value == null ? "" : value);
  if (text === "none") return ["None"];
  if (field === "status") return [label("state", text)];
  if (field === "payment") return [label("payment", text)];
  if (field === "exception") {
    const m = EXCEPTION_VALUE.exec(text);
    return m ? [label("exception", m[1]) + " (" + label("exceptionState", m[2]).toLowerCase() + ", " + m[3] + ")"] : [humanizeText(text)];
  }
  if (field === "inventory") return text.split("; ").map((entry) => { const m = ALLOCATION_VALUE.exec(entry); return m ? m[1] + " × " + m[2] + " " + label("allocation", m[3]).toLowerCase() + " at " + m[4] : humanizeText(entry); });
  if (field === "fulfillment") { const colon = text.indexOf(": "); return colon > 0 ? [label("state", text.slice(0, colon)) + ": " + text.slice(colon + 2)] : [label("state", text)]; }
  return [humanizeText(text)];
}
/** Free text with its hyphenated tokens (ORD-1008, SKU-7720, ids) kept whole: a browser would break them after the hyphen. */
const unbroken = (text) => {
  const value = String(text == null ? "" : text);
  const parts = [];
  let last = 0;
  for (const match of value.matchAll(/[\\p{L}\\p{N}_.]+(?:-[\\p{L}\\p{N}_.]+)+/gu)) {
    if (match.index > last) parts.push(value.slice(last, match.index));
    parts.push(h("span", { class: "nowrap" }, match[0]));
    last = match.index + match[0].length;
  }
  if (last < value.length) parts.push(value.slice(last));
  return parts;
};
const mono = (id) => h("span", { class: "mono" }, id);
const locale = () => context.locale || undefined;
function money(cents, currency) {
  if (typeof cents !== "number") return "";
  try { return new Intl.NumberFormat(locale(), { style: "currency", currency: currency || "USD" }).format(cents / 100); }
  catch { return (cents / 100).toFixed(2) + " " + String(currency || ""); }
}
function absolute(iso) {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return String(iso);
  try { return date.toLocaleString(locale(), { dateStyle: "medium", timeStyle: "short", timeZone: context.timeZone || undefined }); }
  catch { return date.toISOString(); }
}
function relative(iso) {
  const ms = new Date(iso).getTime() - Date.now();
  if (Number.isNaN(ms)) return String(iso);
  const steps = [["day", 86400000], ["hour", 3600000], ["minute", 60000]];
  const [unit, size] = steps.find(([, size]) => Math.abs(ms) >= size) || ["minute", 60000];
  const value = Math.round(ms / size);
  try { return new Intl.RelativeTimeFormat(locale(), { numeric: "auto" }).format(value, unit); }
  catch { return (value < 0 ? -value + " " + unit + "s ago" : "in " + value + " " + unit + "s"); }
}
const when = (iso) => h("time", { datetime: iso, title: absolute(iso) }, relative(iso));
const at = (iso) => h("time", { datetime: iso, title: relative(iso) }, absolute(iso));
function duration(minutes) {
  const m = Math.max(0, Math.round(Number(minutes) || 0));
  if (m < 60) return m + " min";
  if (m < 1440) return Math.floor(m / 60) + " h" + (m % 60 ? " " + (m % 60) + " min" : "");
  return Math.floor(m / 1440) + " d" + (Math.floor(m / 60) % 24 ? " " + (Math.floor(m / 60) % 24) + " h" : "");
}
const badge = (text, tone) => h("span", { class: "badge " + (tone || "") }, text);
const textOf = (result) => ((result.content || []).find((block) => block && block.type === "text") || {}).text || "";
function show(result) {
  let node;
  let data = result.structuredContent;
  if (!data && !result.isError) { try { data = JSON.parse(textOf(result)); } catch { data = undefined; } }
  if (result.isError) node = h("p", { class: "bad", role: "alert" }, textOf(result) || "The tool reported an error.");
  else if (!data || typeof data !== "object") node = h("p", null, textOf(result));
  else { try { node = render(data); } catch { node = h("p", { class: "muted" }, "This card cannot show this result; the assistant has it as text."); } }
  root.replaceChildren(node);
  reportSize();
}
handlers["ui/notifications/tool-input"] = () => { root.replaceChildren(h("p", { class: "muted" }, "Working…")); };
handlers["ui/notifications/tool-result"] = show;
handlers["ui/notifications/tool-cancelled"] = (params) => { root.replaceChildren(h("p", { class: "muted" }, "Cancelled" + (params.reason ? ": " + params.reason : "."))); reportSize(); };
handlers["ui/notifications/host-context-changed"] = applyContext;
handlers["ui/resource-teardown"] = () => ({});
handlers["ping"] = () => ({});
function openLink(url, status) {
  let safe = false;
  try { safe = ["https:", "http:"].includes(new URL(url).protocol); } catch { safe = false; }
  if (!safe) return null;
  const button = h("button", { type: "button" }, "Open approval page");
  button.addEventListener("click", () => {
    status.textContent = "";
    request("ui/open-link", { url }).then(
      (result) => { if (result && result.isError) status.textContent = "The host did not open the link. Open it yourself: " + url; },
      () => { status.textContent = "The host did not open the link. Open it yourself: " + url; },
    ).finally(reportSize);
  });
  return button;
}
new ResizeObserver(reportSize).observe(document.documentElement);
request("ui/initialize", { protocolVersion: "2026-01-26", appInfo: { name: APP_NAME, version: APP_VERSION }, appCapabilities: { availableDisplayModes: ["inline"] } })
  .then((result) => { applyContext((result && result.hostContext) || {}); notify("ui/notifications/initialized", {}); reportSize(); })
  .catch(() => { root.replaceChildren(h("p", { class: "muted" }, "This host did not start the card.")); });
`;

/** JSON inside a script element: `<` escaped, so no value can close the element. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, "\\u003c");
}

/** A card's identity and its `render(data)`: browser JavaScript that returns one Node. */
interface CardSource extends Omit<AppCard, "html"> {
  readonly render: string;
}

export function appCard(source: CardSource): AppCard {
  const { render, ...card } = source;
  const constants = `const LABELS = ${scriptJson(VOCABULARY)};\nconst APP_NAME = ${scriptJson(`order-ops-edge ${card.name}`)};\nconst APP_VERSION = ${scriptJson(CARD_VERSION)};\n`;
  const html = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CARD_CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${card.title}</title>
<style>${STYLE}</style>
</head><body><main id="card" aria-live="polite"><p class="muted">Waiting for the result…</p></main>
<script>(() => {
${constants}${RUNTIME}
${render}
})();</script></body></html>`;
  return { ...card, html };
}
