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
      badge(words(data.status), ex && ex.state === "active" ? "warn" : "info"),
      h("span", { class: "muted small" }, "version " + data.version)),
    h("p", null, data.customer ? data.customer.name + " (" + words(data.customer.tier) + ")" : "", " · ", money(data.total_cents, data.currency), " · ", words(data.channel), " · placed ", when(data.created_at)),
    ex ? h("div", { class: "note" },
      h("div", { class: "line" }, badge(ex.priority, ex.priority === "P1" ? "bad" : "warn"), h("strong", null, label("exception", ex.exception_type)), ex.sla_breached ? badge("SLA breached", "bad") : null, h("span", { class: "muted small" }, words(ex.state) + ", " + ex.assigned_team + ", open " + duration(ex.age_minutes))),
      h("p", null, ex.summary)) : null,
    section("Lines", h("ul", null, (data.lines || []).map((line) => h("li", null, h("span", { class: "mono" }, line.sku), " × " + line.quantity + " at ", money(line.unit_price_cents, data.currency))))),
    section("Evidence", h("dl", null,
      h("dt", null, "Ship to"), h("dd", null, address(data.shipping_address)),
      payment ? [h("dt", null, "Payment"), h("dd", null, words(payment.state), (payment.attempts || []).map((attempt) => h("div", { class: "small muted" }, money(attempt.amount_cents, data.currency) + " by " + attempt.method + ": " + words(attempt.outcome) + (attempt.decline_code ? " (" + attempt.decline_code + ")" : "") + ", ", at(attempt.at))))] : null,
      inventory ? [h("dt", null, "Inventory"), h("dd", null, (inventory.allocations || []).map((a) => h("div", null, a.sku + " × " + a.quantity + " " + words(a.state) + " at " + a.warehouse)))] : null,
      fulfillment ? [h("dt", null, "Fulfillment"), h("dd", null, words(fulfillment.state) + (fulfillment.carrier ? " via " + fulfillment.carrier : "") + ": " + fulfillment.last_event)] : null,
      duplicate ? [h("dt", null, "Duplicate of"), h("dd", null, h("span", { class: "mono" }, duplicate.of_order_id), duplicate.other_order_status ? " (" + words(duplicate.other_order_status) + ")" : "", h("div", { class: "small muted" }, (duplicate.signals || []).join("; ")))] : null)),
    section("Timeline", timeline.length === 0
      ? h("p", { class: "muted" }, "No events recorded.")
      : h("ol", { class: "timeline" }, timeline.map((entry) => h("li", null, h("span", { class: "muted small" }, at(entry.at)), h("span", null, h("strong", null, words(entry.event)), " ", plain(entry.detail)))))));
}
`;

export const orderCard = appCard({
  name: "order-card",
  uri: "ui://order-ops/order.html",
  title: "Order evidence",
  description: "Card for get_order_details: the order, its exception, payment, inventory, fulfillment and duplicate evidence, and its timeline.",
  render,
});
