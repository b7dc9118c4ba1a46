/**
 * The frame every server-rendered page shares (the approval app, the run
 * page, the OAuth consent page): plain HTML, no script, one constant
 * stylesheet. Pages are built with hono/html, which escapes every
 * interpolated value; only nested templates and the stylesheet go in
 * unescaped.
 *
 * Nothing may break mid-word at any width from 360 px up: labels, badges,
 * times and ids do not wrap at all (ids, because a browser would otherwise
 * break `ORD-1008` after its hyphen), and other text wraps only between words.
 */
import { html, raw } from "hono/html";

export type Html = ReturnType<typeof html>;

const STYLE = `
*{box-sizing:border-box}body{margin:0;font:16px/1.5 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;color:#1b1f24;background:#f4f5f7;overflow-wrap:break-word}
main{max-width:760px;margin:0 auto;padding:16px}header{display:flex;justify-content:space-between;align-items:center;gap:4px 12px;flex-wrap:wrap}header .brand{font-weight:600}header button{padding:6px 14px}
h1{font-size:1.35rem;line-height:1.3;margin:.75rem 0 .5rem}h2{font-size:1.05rem;margin:1.25rem 0 .5rem}h3{font-size:1rem;margin:.75rem 0 .25rem}
.card{background:#fff;border:1px solid #d8dce1;border-radius:10px;padding:14px 16px;margin:12px 0}
.muted{color:#5b6470;font-size:.9rem}.badge{display:inline-block;padding:2px 10px;border-radius:999px;font-size:.85rem;font-weight:600;background:#e8ebef;white-space:nowrap}
.risk-high{background:#fde2e1;color:#8a1c17}.risk-medium{background:#fff1d6;color:#7a4b00}.risk-low{background:#e3f3e6;color:#1d5f2c}
.status-approved,.status-applied,.run-completed{background:#e3f3e6;color:#1d5f2c}.status-rejected,.status-expired,.status-stale,.status-superseded,.run-failed,.run-interrupted{background:#fde2e1;color:#8a1c17}
.run-running{background:#dbeafe;color:#123f7a}.run-paused{background:#fff1d6;color:#7a4b00}
.nowrap,time,code,.label{white-space:nowrap}code{font:.9em ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:#eef0f3;padding:1px 4px;border-radius:4px}
.meta{display:flex;flex-wrap:wrap;align-items:center;gap:6px 12px;margin:.25rem 0}
table{width:100%;border-collapse:collapse}th,td{text-align:left;vertical-align:top;padding:8px;border-top:1px solid #e4e7eb}
th{width:1%;font-weight:600;white-space:nowrap}.before{color:#8a1c17}.after{color:#1d5f2c}
@media (max-width:560px){table,thead,tbody,tr,th,td{display:block;width:100%}tr{border-top:1px solid #e4e7eb;padding:6px 0}tr:first-child{border-top:0;padding-top:0}th,td{border:0;padding:2px 0}header>.muted{order:3;flex-basis:100%}}
label{display:block;font-weight:600;margin:.5rem 0 .25rem}textarea,input[type=password],input[type=text],input[type=date],select{width:100%;font:inherit;padding:10px;border:1px solid #b9c0c8;border-radius:8px;background:#fff}
.actions{display:flex;gap:10px;flex-wrap:wrap;margin-top:12px}button{font:inherit;font-weight:600;padding:12px 18px;border-radius:8px;border:0;cursor:pointer;flex:1 1 140px;white-space:nowrap}
.approve{background:#1d7a35;color:#fff}.reject{background:#b42318;color:#fff}.plain{background:#e8ebef;color:#1b1f24;flex:0 0 auto}
tr:first-child th,tr:first-child td{border-top:0}.card>p:first-child,.card>h2:first-child{margin-top:0}.card>p:last-child{margin-bottom:0}
.notice{border-left:4px solid #1d7a35}.error{border-left:4px solid #b42318}ul{padding-left:1.2rem;margin:.25rem 0}a{color:#0b5cad}
.list{list-style:none;padding:0;margin:0}.list>li{margin:12px 0}.summary{font-weight:600;font-size:1.05rem}
.stats{display:grid;grid-template-columns:repeat(auto-fit,minmax(7rem,1fr));gap:8px}.stat{background:#f4f5f7;border-radius:8px;padding:8px 10px}
.stat b{display:block;font-size:1.25rem}.chart{width:100%;height:160px;display:block}.legend{display:flex;flex-wrap:wrap;gap:4px 14px;font-size:.9rem}
.key{display:inline-block;width:18px;height:4px;border-radius:2px;vertical-align:middle;margin-right:6px}
.axis{display:flex;justify-content:space-between;font-size:.8rem;color:#5b6470}.plot{display:flex;gap:6px}.plot svg{flex:1 1 auto;min-width:0}
.ticks{position:relative;width:3.2rem;flex:0 0 auto;font-size:.75rem;color:#5b6470;text-align:right}.ticks span{position:absolute;right:0;transform:translateY(-50%);white-space:nowrap}
.s-planned{stroke:#5b6470;background:repeating-linear-gradient(90deg,#5b6470 0 5px,transparent 5px 8px)}.s-answered{stroke:#0b5cad;background:#0b5cad}
.s-rejected{stroke:#c2410c;background:#c2410c}.s-dropped{stroke:#b42318;background:repeating-linear-gradient(90deg,#b42318 0 2px,transparent 2px 5px)}
.s-p50{stroke:#6d28d9;background:#6d28d9}.s-p99{stroke:#9f1239;background:#9f1239}.s-service-p99{stroke:#0f766e;background:repeating-linear-gradient(90deg,#0f766e 0 6px,transparent 6px 9px)}
svg .line{fill:none;stroke-width:2.5;stroke-linejoin:round;stroke-linecap:round;vector-effect:non-scaling-stroke}svg .grid{stroke:#e4e7eb;stroke-width:1;vector-effect:non-scaling-stroke}
svg .line.s-planned{stroke-dasharray:6 4;stroke-width:2}svg .line.s-answered{stroke-width:4;stroke-opacity:.75}svg .line.s-dropped{stroke-dasharray:2 4}
svg .line.s-p50{stroke-width:2}svg .line.s-p99{stroke-width:3.5}svg .line.s-service-p99{stroke-dasharray:7 4;stroke-width:2}
.s-generator{stroke:#7c5e10;background:repeating-linear-gradient(90deg,#7c5e10 0 8px,transparent 8px 10px)}.s-generator-delay{stroke:#b7791f;background:repeating-linear-gradient(90deg,#b7791f 0 3px,transparent 3px 6px)}
svg .line.s-generator{stroke-dasharray:8 2;stroke-width:1.5}svg .line.s-generator-delay{stroke-dasharray:3 3;stroke-width:1.5}
.run-aborted{background:#fde2e1;color:#8a1c17}.scroll{overflow-x:auto}table.figures{font-size:.9rem}table.figures td{white-space:nowrap}table.figures th,table.figures td{padding:6px 4px}
.scroll{background:linear-gradient(90deg,#fff 30%,#fff0) left/2rem 100% no-repeat local,linear-gradient(270deg,#fff 30%,#fff0) right/2rem 100% no-repeat local,radial-gradient(farthest-side at 0 50%,#0003,#0000) left/12px 100% no-repeat scroll,radial-gradient(farthest-side at 100% 50%,#0003,#0000) right/12px 100% no-repeat scroll}
.verdict-inconclusive{border-left:4px solid #b7791f}
@media (max-width:560px){table.figures tr:first-child{display:none}table.figures tr{display:flex;flex-wrap:wrap;gap:2px 14px;padding:6px 0;border-top:1px solid #e4e7eb}table.figures tr:nth-child(2){border-top:0;padding-top:0}table.figures th,table.figures td{display:block;width:auto;padding:0;border:0}table.figures tr>th:first-child{flex-basis:100%}table.figures td[data-label]::before{content:attr(data-label) " ";color:#5b6470}}.verdict-passed{border-left:4px solid #1d7a35}.verdict-failed{border-left:4px solid #b42318}
.warning{border-left:4px solid #b7791f}.decision{border:2px solid #9aa3ad}.decision p{margin:0 0 .25rem}.decision .label{font-weight:600}label.choice{display:flex;gap:10px;align-items:flex-start;font-weight:400;margin:.6rem 0}
label.choice input{margin-top:.35rem;width:1.1rem;height:1.1rem;flex:0 0 auto}
`;

export function layout(title: string, body: Html, options: { refreshSeconds?: number } = {}): Html {
  const refresh =
    options.refreshSeconds === undefined ? "" : html`<meta http-equiv="refresh" content="${options.refreshSeconds}">\n`;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
${refresh}<title>${title} · Order Ops Edge</title>
<style>${raw(STYLE)}</style>
</head>
<body><main>${body}</main></body>
</html>`;
}
