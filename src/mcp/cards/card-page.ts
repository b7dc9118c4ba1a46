import { ACTION_LABELS } from "../../orders/change-kinds";
import type { AppCard } from "../apps";
import { CARD_SCRIPTS } from "./card-scripts";

/**
 * The document every card shares: no external reference, the style, and the
 * card's script, built from its TypeScript in cards/ (npm run cards). The
 * script speaks the MCP Apps bridge with the host and draws the tool result;
 * the words it uses are the approval app's own: orders/labels.ts and
 * proposals/status-labels.ts bundled into it, and the actions' words, which
 * belong to the change kinds (whose modules the browser has no use for),
 * written into the document as data: an attribute, so the card's script stays
 * its only script. So a new kind needs no rebuild of the scripts.
 */

const ATTRIBUTE_ESCAPES: Readonly<Record<string, string>> = { "&": "&amp;", '"': "&quot;", "<": "&lt;", ">": "&gt;" };

/** Read by cards/words.ts: the actions' words as JSON, escaped for a double-quoted attribute. */
const ACTION_WORDS = JSON.stringify(ACTION_LABELS).replace(/[&"<>]/g, (c) => ATTRIBUTE_ESCAPES[c] ?? c);

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

/** A card's identity; its script is the one built from cards/<name>.ts. */
interface CardSource extends Omit<AppCard, "html"> {
  readonly name: keyof typeof CARD_SCRIPTS;
}

export function appCard(card: CardSource): AppCard {
  const html = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CARD_CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${card.title}</title>
<style>${STYLE}</style>
</head><body><main id="card" aria-live="polite" data-action-labels="${ACTION_WORDS}"><p class="muted">Waiting for the result…</p></main>
<script>${CARD_SCRIPTS[card.name]}</script></body></html>`;
  return { ...card, html };
}
