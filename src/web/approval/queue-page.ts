import { html } from "hono/html";
import { type Html, layout } from "../../http/html-page";
import { actionLabel } from "../../orders/change-kinds";
import { riskLabel } from "../../orders/labels";
import type { OrderRecord } from "../../orders/order-record";
import type { ProposalView } from "../../proposals/proposal-schemas";
import { proposalStatusLabel } from "../../proposals/status-labels";
import { money } from "../format";
import { idTag, pageHeader, type SignedIn, textTag, timeTag } from "../pages";
import { moneyAtStake } from "./explain";

interface QueuePageOptions extends SignedIn {
  readonly proposals: readonly ProposalView[];
  /** The orders the proposals would change, by id; a missing one shows no amount. */
  readonly orders: ReadonlyMap<string, OrderRecord>;
  readonly now: Date;
}

/** The money line of one entry: what moves, or else the order's value, so two entries differ at a glance. */
function amountOf(proposal: ProposalView, order: OrderRecord | undefined): string {
  const stake = moneyAtStake(proposal, order ?? null);
  if (stake.movesMoney) return stake.short;
  return order ? `Order value ${money(order.total_cents, order.currency)}` : "";
}

function entry(p: ProposalView, order: OrderRecord | undefined, now: Date): Html {
  const amount = amountOf(p, order);
  return html`<li class="card">
<a class="summary" href="/approvals/${encodeURIComponent(p.proposal_id)}">${textTag(p.change_summary)}</a>
<div class="meta"><span class="nowrap">Order ${idTag(p.order_id)}</span><span class="badge risk-${p.risk}">${riskLabel(p.risk)}</span><span class="badge status-${p.status}">${proposalStatusLabel(p.status)}</span>${amount ? html`<span class="label amount">${amount}</span>` : ""}<span class="nowrap">expires ${timeTag(p.expires_at, now)}</span></div>
<div class="muted">${actionLabel(p.action)} · proposed ${timeTag(p.created_at, now)} by ${p.created_by}</div>
</li>`;
}

/**
 * The audit export as a form: GET /approvals/audit with the same fields as
 * GET /api/audit. Dates are UTC days; "to" is exclusive there, so the labels say so.
 */
function auditExportForm(): Html {
  return html`<section class="card" id="audit-export">
<h2>Audit trail</h2>
<p class="muted">Every event of your account with its seal, to hand to an auditor. NDJSON is exact and can be checked for tampering; CSV opens in a spreadsheet. Leave a field empty for no limit.</p>
<form method="get" action="/approvals/audit">
<label for="export-format">Format</label>
<select id="export-format" name="format"><option value="ndjson" selected>NDJSON (exact, verifiable)</option><option value="csv">CSV (for a spreadsheet)</option></select>
<label for="export-from">From (UTC date, included)</label>
<input id="export-from" name="from" type="date">
<label for="export-to">To (UTC date, not included)</label>
<input id="export-to" name="to" type="date">
<label for="export-order">Order (optional)</label>
<input id="export-order" name="order_id" type="text" maxlength="140" autocomplete="off" spellcheck="false" placeholder="ORD-1017">
<div class="actions"><button class="plain" type="submit">Export audit trail</button></div>
</form>
</section>`;
}

export function queuePage(options: QueuePageOptions): Html {
  const entries = options.proposals.map((p) => entry(p, options.orders.get(p.order_id), options.now));
  return layout(
    "Pending proposals",
    html`${pageHeader(options)}
<h1>Pending proposals</h1>
${entries.length > 0 ? html`<p class="muted">Newest first. Approved ones stay here until the agent confirms them or they expire.</p><ul class="list">${entries}</ul>` : html`<div class="card"><p>Nothing is waiting for a decision.</p></div>`}
${auditExportForm()}`,
  );
}
