import { appCard } from "./card-page";

/** Renders get_order_details: the order, its exception, the evidence and the timeline. */
const render = `
function section(title, ...content) { return [h("h2", null, title), ...content]; }
function address(a) {
  if (!a) return "none";
  return [a.recipient, a.line1, a.line2, [a.city, a.region, a.postal_code].filter(Boolean).join(" "), a.country].filter(Boolean).join(", ");
}
function render(data) {
  const ex = data.exception;
  const payment = data.payment;
  const inventory = data.inventory;
  const fulfillment = data.fulfillment;
  const duplicate = data.duplicate;
  const timeline = Array.isArray(data.timeline) ? data.timeline : [];
  return h("section", null,
    h("div", { class: "head" },
      h("h1", { class: "mono" }, data.order_id),
      badge(label("state", data.status), ex && ex.state === "active" ? "warn" : "info"),
      h("span", { class: "muted small" }, "version " + data.version)),
    h("p", null, data.customer ? data.customer.name + " (" + humanize(data.customer.tier) + ")" : "", " · ", money(data.total_cents, data.currency), " · ", humanize(data.channel), " · placed ", when(data.created_at)),
    ex ? h("div", { class: "note" },
      h("div", { class: "line" }, badge(ex.priority, ex.priority === "P1" ? "bad" : "warn"), h("strong", null, label("exception", ex.exception_type)), ex.sla_breached ? badge("SLA breached", "bad") : null, h("span", { class: "muted small" }, label("exceptionState", ex.state).toLowerCase() + ", " + ex.assigned_team + ", open " + duration(ex.age_minutes))),
      h("p", null, unbroken(humanizeText(ex.summary)))) : null,
    section("Lines", h("ul", null, (data.lines || []).map((line) => h("li", null, mono(line.sku), " × " + line.quantity + " at ", money(line.unit_price_cents, data.currency))))),
    section("Evidence", h("dl", null,
      h("dt", null, "Ship to"), h("dd", null, address(data.shipping_address)),
      payment ? [h("dt", null, "Payment"), h("dd", null, label("payment", payment.state), (payment.attempts || []).map((attempt) => h("div", { class: "small muted" }, money(attempt.amount_cents, data.currency) + " by " + attempt.method + ": " + humanize(attempt.outcome) + (attempt.decline_code ? " (" + humanizeText(attempt.decline_code) + ")" : "") + ", ", at(attempt.at))))] : null,
      inventory ? [h("dt", null, label("field", "inventory")), h("dd", null, (inventory.allocations || []).map((a) => h("div", null, mono(a.sku), " × " + a.quantity + " " + label("allocation", a.state).toLowerCase() + " at ", mono(a.warehouse))))] : null,
      fulfillment ? [h("dt", null, "Fulfillment"), h("dd", null, label("state", fulfillment.state) + (fulfillment.carrier ? " via " + fulfillment.carrier : "") + ": ", unbroken(fulfillment.last_event))] : null,
      duplicate ? [h("dt", null, "Duplicate of"), h("dd", null, mono(duplicate.of_order_id), duplicate.other_order_status ? " (" + label("state", duplicate.other_order_status) + ")" : "", h("div", { class: "small muted" }, unbroken(humanizeText((duplicate.signals || []).join("; ")))))] : null)),
    section("Timeline", timeline.length === 0
      ? h("p", { class: "muted" }, "No events recorded.")
      : h("ol", { class: "timeline" }, timeline.map((entry) => h("li", null, h("span", { class: "muted small" }, at(entry.at)), h("span", { class: "detail" }, h("strong", null, humanize(entry.event)), " ", unbroken(humanizeText(entry.detail))))))));
}
`;

export const orderCard = appCard({
  name: "order-card",
  uri: "ui://order-ops/order.html",
  title: "Order evidence",
  description: "Card for get_order_details: the order, its exception, payment, inventory, fulfillment and duplicate evidence, and its timeline.",
  render,
});
