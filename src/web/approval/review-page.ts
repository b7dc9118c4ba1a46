import { html } from "hono/html";
import { type Html, layout } from "../../http/html-page";
import { actionLabel } from "../../orders/change-kinds";
import {
  allocationLabel,
  changeValueLines,
  exceptionLabel,
  exceptionStateLabel,
  fieldLabel,
  fulfillmentEvent,
  fulfillmentLabel,
  humanizeText,
  orderStatusLabel,
  paymentLabel,
  riskLabel,
} from "../../orders/labels";
import type { OrderRecord } from "../../orders/order-record";
import type { FieldChange } from "../../orders/order-state";
import { formatAddress } from "../../orders/order-state";
import { referenceData } from "../../orders/reference-data";
import { approvalRefusal, roleRefusal } from "../../proposals/approval-rules";
import type { ProposalView } from "../../proposals/proposal-schemas";
import { proposalStatusLabel } from "../../proposals/status-labels";
import { money } from "../format";
import { idTag, pageHeader, type SignedIn, sentenceTag, textTag, timeTag } from "../pages";
import { explainState, moneyAtStake, orderNowNote } from "./explain";

interface ReviewPageOptions extends SignedIn {
  readonly proposal: ProposalView;
  readonly order: OrderRecord | null;
  readonly now: Date;
  readonly error?: string;
}

function lines(values: readonly string[], className: string, prefix = ""): Html {
  return html`${values.map((value) => html`<div class="${className}">${prefix}${textTag(value)}</div>`)}`;
}

function changeRows(changes: readonly FieldChange[]): Html {
  if (changes.length === 0) return html`<tr><td>No field changes.</td></tr>`;
  return html`${changes.map(
    (c) =>
      html`<tr><th><span class="label">${fieldLabel(c.field)}</span></th><td>${lines(changeValueLines(c.field, c.before), "before")}${lines(changeValueLines(c.field, c.after), "after", "→ ")}</td></tr>`,
  )}`;
}

function orderCard(order: OrderRecord | null, now: Date): Html {
  if (!order) return html`<div class="card error">The order no longer exists in this account.</div>`;
  const customer = referenceData.customers.get(order.customer_id);
  const evidence = order.evidence;
  const items = order.lines.map(
    (l) =>
      html`<li><span class="nowrap">${l.sku}</span> × ${l.quantity} at ${money(l.unit_price_cents, order.currency)}</li>`,
  );
  const stock = (evidence?.inventory.allocations ?? []).map(
    (a) =>
      html`<li><span class="nowrap">${a.sku}</span> × ${a.quantity} ${allocationLabel(a.state)} at <span class="nowrap">${a.warehouse}</span></li>`,
  );
  const exception = order.exception;
  return html`<div class="card"><table>
<tr><th><span class="label">Order</span></th><td>${idTag(order.order_id)} · ${orderStatusLabel(order.status)} · version ${order.version}</td></tr>
<tr><th><span class="label">Customer</span></th><td>${customer?.name ?? order.customer_id} <span class="nowrap">(${order.customer_id})</span></td></tr>
<tr><th><span class="label">Total</span></th><td>${money(order.total_cents, order.currency)}</td></tr>
${evidence ? html`<tr><th><span class="label">Payment</span></th><td>${paymentLabel(evidence.payment.state)}</td></tr>` : ""}
<tr><th><span class="label">Items</span></th><td><ul>${items}</ul></td></tr>
${stock.length > 0 ? html`<tr><th><span class="label">Stock</span></th><td><ul>${stock}</ul></td></tr>` : ""}
${evidence ? html`<tr><th><span class="label">Fulfillment</span></th><td>${fulfillmentLabel(evidence.fulfillment.state)}: ${textTag(fulfillmentEvent(evidence.fulfillment.state, evidence.fulfillment.last_event))}</td></tr>` : ""}
<tr><th><span class="label">Ships to</span></th><td>${textTag(formatAddress(order.shipping_address))}</td></tr>
${
  exception
    ? html`<tr><th><span class="label">Exception</span></th><td>${exceptionLabel(exception.type)} <span class="nowrap">(${exception.priority}, ${exceptionStateLabel(exception.state)})</span>, opened ${timeTag(exception.opened_at, now)}: ${textTag(humanizeText(exception.summary))}</td></tr>`
    : ""
}
</table></div>`;
}

/** For a stale proposal: what happened to the order after it was proposed, from the order's own timeline. */
function sinceProposed(proposal: ProposalView, order: OrderRecord | null, now: Date): Html {
  if (proposal.status !== "stale" || !order?.evidence) return html``;
  const since = order.evidence.timeline.filter((entry) => Date.parse(entry.at) >= Date.parse(proposal.created_at));
  if (since.length === 0) return html``;
  return html`<h3>What changed on the order since it was proposed</h3><ul>${since.map(
    (entry) => html`<li>${timeTag(entry.at, now)}: ${textTag(humanizeText(entry.detail))}</li>`,
  )}</ul>`;
}

/**
 * What the approver came for, first: the money, the reason box and the two
 * buttons, right under the one-line change and its risk, so they are on the
 * first screen of a phone. The field-by-field change and the evidence follow.
 */
function decisionForm(proposal: ProposalView, stake: string, options: ReviewPageOptions): Html {
  const blocked = roleRefusal(options.person) ?? approvalRefusal(proposal, options.person);
  const money = html`<p><span class="label">Money</span> <span id="money">${stake}</span></p>`;
  // Someone who cannot decide sees why, and no buttons: the refusal the proposal service would give, said first.
  if (blocked)
    return html`<div class="card decision" id="decision">${money}${fourEyes(proposal, options.now)}<p id="cannot-decide">${withTimes(capitalized(blocked.message), options.now)}.</p></div>`;
  return html`<form class="card decision" id="decision" method="post" action="/approvals/${encodeURIComponent(proposal.proposal_id)}/decision">
<input type="hidden" name="csrf" value="${options.csrfToken}">
${money}${fourEyes(proposal, options.now)}
<label for="reason">Reason (recorded in the audit log)</label>
<textarea id="reason" name="reason" rows="3" minlength="3" maxlength="500" required></textarea>
<div class="actions">
<button class="approve" type="submit" name="decision" value="approve">Approve</button>
<button class="reject" type="submit" name="decision" value="reject">Reject</button>
</div>
</form>`;
}

const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** Under four eyes: why two approvers, who has approved, and what is still needed. */
function fourEyes(proposal: ProposalView, now: Date): Html {
  if (proposal.approvals_required < 2 && proposal.approvals.length < 2) return html``;
  const done = proposal.approvals.map(
    (a) => html`<li>Approved by ${a.approver} ${timeTag(a.at, now)}: ${textTag(a.reason)}</li>`,
  );
  const left = proposal.approvals_required - proposal.approvals.length;
  const still =
    proposal.status !== "pending_approval"
      ? ""
      : left > 0
        ? proposal.approvals.length === 0
          ? `${left === 1 ? "One approver" : `${left} approvers`}, other than the proposer (${proposal.created_by}), must approve.`
          : `${left === 1 ? "One more approver" : `${left} more approvers`}, other than those above and the proposer (${proposal.created_by}), must approve.`
        : "";
  return html`<div id="four-eyes"><p><span class="label">Two approvers</span> ${textTag(capitalized(proposal.second_approver_reason ?? "this change needs two approvers"))}.</p>
${done.length > 0 ? html`<ul>${done}</ul>` : html`<p class="muted">Nobody has approved it yet.</p>`}${still ? html`<p id="still-needed">${still}</p>` : ""}</div>`;
}

function nextStep(proposal: ProposalView, order: OrderRecord | null, now: Date): Html {
  const state = explainState(proposal);
  return html`<div class="card ${state.tone}" role="status" id="next-step">${state.sentences.map((s) => html`<p>${sentenceTag(s, now)}</p>`)}${sinceProposed(proposal, order, now)}</div>`;
}

export function reviewPage(options: ReviewPageOptions): Html {
  const { proposal, order, now } = options;
  const stake = moneyAtStake(proposal, order);
  const evidence = proposal.evidence.map((e) => html`<li>${textTag(humanizeText(e))}</li>`);
  const applied = proposal.outcome;
  const open = proposal.status === "pending_approval" || proposal.status === "approved";
  const note = orderNowNote(proposal);
  const error = options.error ? html`<div class="card error" role="alert">${withTimes(options.error, now)}</div>` : "";
  // Undecided: the decision comes first, and what happens after it below. Decided: what happened comes first.
  const top =
    proposal.status === "pending_approval"
      ? html`${decisionForm(proposal, stake.detail, options)}${nextStep(proposal, order, now)}`
      : html`${nextStep(proposal, order, now)}<h2>Money</h2>
<div class="card"><p id="money">${stake.detail}</p>${fourEyes(proposal, now)}</div>`;
  return layout(
    `${actionLabel(proposal.action)} for ${proposal.order_id}`,
    html`${pageHeader(options)}
<h1>${textTag(proposal.change_summary)}</h1>
<div class="meta"><span class="nowrap">Order ${idTag(proposal.order_id)}</span><span class="label">${actionLabel(proposal.action)}</span></div>
<div class="meta"><span class="badge status-${proposal.status}" id="status">${proposalStatusLabel(proposal.status)}</span><span class="badge risk-${proposal.risk}">${riskLabel(proposal.risk)}</span>${open ? html`<span class="nowrap">expires ${timeTag(proposal.expires_at, now)}</span>` : ""}</div>
${error}
${top}
<h2>${applied ? "The change that was applied" : "The change"}</h2>
<div class="card"><table>${changeRows(applied ? applied.changes : proposal.expected_changes)}</table></div>
<h2>Why</h2>
<div class="card"><p>${textTag(proposal.rationale)}</p><ul>${evidence}</ul></div>
<h2>The order now</h2>
${note ? html`<p class="muted">${note}</p>` : ""}
${orderCard(order, now)}
<p class="muted">Proposal ${idTag(proposal.proposal_id)} · proposed ${timeTag(proposal.created_at, now)} by ${proposal.created_by} for version ${proposal.pinned_version} of the order</p>`,
  );
}

/** A refusal's exact times ("you already approved this proposal at 2026-…Z") shown as the page's relative times. */
function withTimes(text: string, now: Date): Html {
  const parts = text.split(/(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z)/);
  return html`${parts.map((part, index) => (index % 2 === 1 ? timeTag(part, now) : textTag(part)))}`;
}
