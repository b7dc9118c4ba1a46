import { html, raw } from "hono/html";

/**
 * The frame every server-rendered page shares (the approval app, the OAuth
 * consent page): plain HTML, no script, one constant stylesheet. Pages are
 * built with hono/html, which escapes every interpolated value; only nested
 * templates and the stylesheet go in unescaped.
 */
export type Html = ReturnType<typeof html>;

const STYLE = `
*{box-sizing:border-box}body{margin:0;font:16px/1.5 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;color:#1b1f24;background:#f4f5f7}
main{max-width:760px;margin:0 auto;padding:16px}header{display:flex;justify-content:space-between;align-items:center;gap:8px;flex-wrap:wrap}
h1{font-size:1.35rem;margin:.5rem 0}h2{font-size:1.05rem;margin:1.25rem 0 .5rem}
.card{background:#fff;border:1px solid #d8dce1;border-radius:10px;padding:14px 16px;margin:12px 0}
.muted{color:#5b6470;font-size:.9rem}.badge{display:inline-block;padding:2px 10px;border-radius:999px;font-size:.85rem;font-weight:600;background:#e8ebef}
.risk-high{background:#fde2e1;color:#8a1c17}.risk-medium{background:#fff1d6;color:#7a4b00}.risk-low{background:#e3f3e6;color:#1d5f2c}
.status-approved,.status-applied{background:#e3f3e6;color:#1d5f2c}.status-rejected,.status-expired,.status-stale{background:#fde2e1;color:#8a1c17}
table{width:100%;border-collapse:collapse}th,td{text-align:left;vertical-align:top;padding:8px;border-top:1px solid #e4e7eb;overflow-wrap:anywhere}
th{width:22%;font-weight:600}.before{color:#8a1c17}.after{color:#1d5f2c}
@media (max-width:560px){table,thead,tbody,tr,th,td{display:block;width:100%}tr{border-top:1px solid #e4e7eb;padding:6px 0}th,td{border:0;padding:2px 0}}
label{display:block;font-weight:600;margin:.5rem 0 .25rem}textarea,input[type=password]{width:100%;font:inherit;padding:10px;border:1px solid #b9c0c8;border-radius:8px}
.actions{display:flex;gap:10px;flex-wrap:wrap;margin-top:12px}button{font:inherit;font-weight:600;padding:12px 18px;border-radius:8px;border:0;cursor:pointer;flex:1 1 140px}
.approve{background:#1d7a35;color:#fff}.reject{background:#b42318;color:#fff}.plain{background:#e8ebef;color:#1b1f24;flex:0 0 auto}
tr:first-child th,tr:first-child td{border-top:0}.card>p:first-child{margin-top:0}.card>p:last-child{margin-bottom:0}
.notice{border-left:4px solid #1d7a35}.error{border-left:4px solid #b42318}ul{padding-left:1.2rem;margin:.25rem 0}a{color:#0b5cad}
.warning{border-left:4px solid #b7791f}label.choice{display:flex;gap:10px;align-items:flex-start;font-weight:400;margin:.6rem 0}
label.choice input{margin-top:.35rem;width:1.1rem;height:1.1rem;flex:0 0 auto}code{overflow-wrap:anywhere}
`;

export function layout(title: string, body: Html): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${title} · Order Ops Edge</title>
<style>${raw(STYLE)}</style>
</head>
<body><main>${body}</main></body>
</html>`;
}
