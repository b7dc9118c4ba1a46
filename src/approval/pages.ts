import { html, raw } from "hono/html";
import { formatAddress } from "../orders/order-state";
import type { OrderRecord } from "../orders/order-record";
import { referenceData } from "../orders/reference-data";
import type { ProposalView } from "../proposals/schemas";

/**
 * Server-rendered HTML for the approval app. Plain HTML forms, no script: they
 * work on any phone, and there is no client code to trust. Pages are built with
 * hono/html, which escapes every interpolated value; only nested templates
 * and the constant stylesheet go in unescaped.
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
`;

function dollars(cents: number, currency = "USD"): string {
  return `$${(cents / 100).toFixed(2)} ${currency}`;
}

function layout(title: string, body: Html): Html {
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

function signOutForm(csrfToken: string): Html {
  return html`<form method="post" action="/approvals/sign-out"><input type="hidden" name="csrf" value="${csrfToken}"><button class="plain" type="submit">Sign out</button></form>`;
}

function pageHeader(approver: string, csrfToken: string): Html {
  return html`<header><a href="/approvals">Order Ops Edge approvals</a><span class="muted">Signed in as ${approver}</span>${signOutForm(csrfToken)}</header>`;
}

export function signInPage(options: { next: string; error?: string }): Html {
  const error = options.error ? html`<div class="card error" role="alert">${options.error}</div>` : "";
  return layout(
    "Sign in",
    html`<h1>Approver sign-in</h1>
<p class="muted">A proposal link shows nothing until an approver signs in. Use your approver token; MCP tokens cannot approve.</p>
${error}
<form class="card" method="post" action="/approvals/sign-in">
<input type="hidden" name="next" value="${options.next}">
<label for="token">Approver token</label>
<input id="token" name="token" type="password" autocomplete="current-password" required>
<div class="actions"><button class="approve" type="submit">Sign in</button></div>
</form>`,
  );
}

export function messagePage(title: string, message: string, session?: { approver: string; csrfToken: string }): Html {
  const header = session ? pageHeader(session.approver, session.csrfToken) : "";
  return layout(title, html`${header}<h1>${title}</h1><div class="card">${message}</div><p><a href="/approvals">Back to pending proposals</a></p>`);
}

function orderCard(order: OrderRecord | null): Html {
  if (!order) return html`<div class="card error">The order no longer exists in this account.</div>`;
  const customer = referenceData.customers.get(order.customer_id);
  const lines = order.lines.map((l) => html`<li>${l.sku} × ${l.quantity} at ${dollars(l.unit_price_cents, order.currency)}</li>`);
  return html`<div class="card"><table>
<tr><th>Order</th><td>${order.order_id} · ${order.status} · version ${order.version}</td></tr>
<tr><th>Customer</th><td>${customer?.name ?? order.customer_id} (${order.customer_id})</td></tr>
<tr><th>Total</th><td>${dollars(order.total_cents, order.currency)}</td></tr>
<tr><th>Lines</th><td><ul>${lines}</ul></td></tr>
<tr><th>Ships to</th><td>${formatAddress(order.shipping_address)}</td></tr>
${order.exception ? html`<tr><th>Exception</th><td>${order.exception.type} (${order.exception.priority}, ${order.exception.state}): ${order.exception.summary}</td></tr>` : ""}
</table></div>`;
}

export interface ReviewPageOptions {
  readonly proposal: ProposalView;
  readonly order: OrderRecord | null;
  readonly approver: string;
  readonly csrfToken: string;
  readonly notice?: string;
  readonly error?: string;
}

export function reviewPage(options: ReviewPageOptions): Html {
  const { proposal, order } = options;
  const changes = proposal.expected_changes.map(
    (c) => html`<tr><th>${c.field}</th><td><span class="before">${c.before}</span><br>→ <span class="after">${c.after}</span></td></tr>`,
  );
  const evidence = proposal.evidence.map((e) => html`<li>${e}</li>`);
  const decided = proposal.decided_by
    ? html`<p>${proposal.status === "rejected" ? "Rejected" : "Approved"} by ${proposal.decided_by} at ${proposal.decided_at}: ${proposal.decision_reason}</p>`
    : "";
  const form =
    proposal.status === "pending_approval"
      ? html`<form class="card" method="post" action="/approvals/${encodeURIComponent(proposal.proposal_id)}/decision">
<input type="hidden" name="csrf" value="${options.csrfToken}">
<label for="reason">Reason (recorded in the audit log)</label>
<textarea id="reason" name="reason" rows="3" minlength="3" maxlength="500" required></textarea>
<div class="actions">
<button class="approve" type="submit" name="decision" value="approve">Approve</button>
<button class="reject" type="submit" name="decision" value="reject">Reject</button>
</div>
</form>`
      : html`<div class="card"><p>This proposal is <strong>${proposal.status.replace("_", " ")}</strong>; there is nothing to decide.</p>${decided}</div>`;
  const notice = options.notice ? html`<div class="card notice" role="status">${options.notice}</div>` : "";
  const error = options.error ? html`<div class="card error" role="alert">${options.error}</div>` : "";
  return layout(
    `Proposal ${proposal.proposal_id}`,
    html`${pageHeader(options.approver, options.csrfToken)}
<h1>${proposal.action.replace(/_/g, " ")} for ${proposal.order_id}</h1>
<p><span class="badge status-${proposal.status}" id="status">${proposal.status.replace("_", " ")}</span>
<span class="badge risk-${proposal.risk}">${proposal.risk} risk</span>
<span class="muted">expires ${proposal.expires_at} · proposed by ${proposal.created_by}</span></p>
${notice}${error}
<h2>The change</h2>
<div class="card"><table>${changes.length > 0 ? changes : html`<tr><td>No field changes.</td></tr>`}</table></div>
<h2>Why</h2>
<div class="card"><p>${proposal.rationale}</p><ul>${evidence}</ul></div>
<h2>The order now</h2>
${orderCard(order)}
${form}`,
  );
}

export function queuePage(options: { proposals: readonly ProposalView[]; approver: string; csrfToken: string }): Html {
  const rows = options.proposals.map(
    (p) =>
      html`<tr><td><a href="/approvals/${encodeURIComponent(p.proposal_id)}">${p.action.replace(/_/g, " ")}</a></td><td>${p.order_id}</td><td><span class="badge risk-${p.risk}">${p.risk}</span></td><td>${p.status.replace("_", " ")}</td><td class="muted">${p.expires_at}</td></tr>`,
  );
  return layout(
    "Pending proposals",
    html`${pageHeader(options.approver, options.csrfToken)}
<h1>Pending proposals</h1>
<div class="card">${rows.length > 0 ? html`<table><tr><th>Action</th><th>Order</th><th>Risk</th><th>Status</th><th>Expires</th></tr>${rows}</table>` : html`<p>Nothing is waiting for a decision.</p>`}</div>`,
  );
}
