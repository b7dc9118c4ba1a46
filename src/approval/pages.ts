import { html } from "hono/html";
import { layout, type Html } from "../http/html-page";
import { formatAddress } from "../orders/order-state";
import type { OrderRecord } from "../orders/order-record";
import { referenceData } from "../orders/reference-data";
import type { ProposalView } from "../proposals/schemas";

/**
 * Server-rendered HTML for the approval app. Plain HTML forms, no script: they
 * work on any phone, and there is no client code to trust (http/html-page.ts
 * has the shared frame and the escaping rule).
 */
export type { Html };

function dollars(cents: number, currency = "USD"): string {
  return `$${(cents / 100).toFixed(2)} ${currency}`;
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
