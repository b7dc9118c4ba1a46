import { html } from "hono/html";
import type { OrderRecord } from "../orders/order-record";
import type { ProposalView } from "../proposals/schemas";
import { moneyAtStake } from "./explain";
import { money } from "./format";
import { actionLabel, proposalStatusLabel, riskLabel } from "./labels";
import { layout, type Html } from "../http/html-page";
import { idTag, pageHeader, textTag, timeTag, type SignedIn } from "./pages";

export interface QueuePageOptions extends SignedIn {
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

export function queuePage(options: QueuePageOptions): Html {
  const entries = options.proposals.map((p) => entry(p, options.orders.get(p.order_id), options.now));
  return layout(
    "Pending proposals",
    html`${pageHeader(options)}
<h1>Pending proposals</h1>
${entries.length > 0 ? html`<p class="muted">Newest first. Approved ones stay here until the agent confirms them or they expire.</p><ul class="list">${entries}</ul>` : html`<div class="card"><p>Nothing is waiting for a decision.</p></div>`}`,
  );
}
