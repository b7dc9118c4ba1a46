/** Renders get_order_details: the order, its exception, the evidence and the timeline. */
import type { Address } from "../src/orders/evidence";
import type { OrderDetails } from "../src/orders/tool-outputs";
import { at, badge, type Child, duration, h, money, mono, unbroken, when } from "./dom";
import { startCard } from "./host";
import { words } from "./words";

const section = (title: string, ...content: Child[]): Child[] => [h("h2", null, title), ...content];

function address(a: Address | null): string {
  if (!a) return "none";
  return [a.recipient, a.line1, a.line2, [a.city, a.region, a.postal_code].filter(Boolean).join(" "), a.country]
    .filter(Boolean)
    .join(", ");
}

function evidence(data: OrderDetails): HTMLElement {
  const { payment, inventory, fulfillment, duplicate } = data;
  return h(
    "dl",
    null,
    h("dt", null, "Ship to"),
    h("dd", null, address(data.shipping_address)),
    payment && [
      h("dt", null, "Payment"),
      h(
        "dd",
        null,
        words.payment(payment.state),
        (payment.attempts || []).map((attempt) =>
          h(
            "div",
            { class: "small muted" },
            `${money(attempt.amount_cents, data.currency)} by ${attempt.method}: ${words.name(attempt.outcome)}${attempt.decline_code ? ` (${words.text(attempt.decline_code)})` : ""}, `,
            at(attempt.at),
          ),
        ),
      ),
    ],
    inventory && [
      h("dt", null, words.field("inventory")),
      h(
        "dd",
        null,
        (inventory.allocations || []).map((a) =>
          h("div", null, mono(a.sku), ` × ${a.quantity} ${words.allocation(a.state)} at `, mono(a.warehouse)),
        ),
      ),
    ],
    fulfillment && [
      h("dt", null, "Fulfillment"),
      h(
        "dd",
        null,
        `${words.state(fulfillment.state)}${fulfillment.carrier ? ` via ${fulfillment.carrier}` : ""}: `,
        unbroken(fulfillment.last_event),
      ),
    ],
    duplicate && [
      h("dt", null, "Duplicate of"),
      h(
        "dd",
        null,
        mono(duplicate.of_order_id),
        duplicate.other_order_status ? ` (${words.state(duplicate.other_order_status)})` : "",
        h("div", { class: "small muted" }, unbroken(words.text((duplicate.signals || []).join("; ")))),
      ),
    ],
  );
}

function render(data: OrderDetails): Node {
  const ex = data.exception;
  const timeline = Array.isArray(data.timeline) ? data.timeline : [];
  return h(
    "section",
    null,
    h(
      "div",
      { class: "head" },
      h("h1", { class: "mono" }, data.order_id),
      badge(words.state(data.status), ex && ex.state === "active" ? "warn" : "info"),
      h("span", { class: "muted small" }, `version ${data.version}`),
    ),
    h(
      "p",
      null,
      data.customer ? `${data.customer.name} (${words.name(data.customer.tier)})` : "",
      " · ",
      money(data.total_cents, data.currency),
      " · ",
      words.name(data.channel),
      " · placed ",
      when(data.created_at),
    ),
    ex &&
      h(
        "div",
        { class: "note" },
        h(
          "div",
          { class: "line" },
          badge(ex.priority, ex.priority === "P1" ? "bad" : "warn"),
          h("strong", null, words.exception(ex.exception_type)),
          ex.sla_breached && badge("SLA breached", "bad"),
          h(
            "span",
            { class: "muted small" },
            `${words.exceptionState(ex.state)}, ${ex.assigned_team}, open ${duration(ex.age_minutes)}`,
          ),
        ),
        h("p", null, unbroken(words.text(ex.summary))),
      ),
    section(
      "Lines",
      h(
        "ul",
        null,
        (data.lines || []).map((line) =>
          h("li", null, mono(line.sku), ` × ${line.quantity} at `, money(line.unit_price_cents, data.currency)),
        ),
      ),
    ),
    section("Evidence", evidence(data)),
    section(
      "Timeline",
      timeline.length === 0
        ? h("p", { class: "muted" }, "No events recorded.")
        : h(
            "ol",
            { class: "timeline" },
            timeline.map((entry) =>
              h(
                "li",
                null,
                h("span", { class: "muted small" }, at(entry.at)),
                h(
                  "span",
                  { class: "detail" },
                  h("strong", null, words.name(entry.event)),
                  " ",
                  unbroken(words.text(entry.detail)),
                ),
              ),
            ),
          ),
    ),
  );
}

startCard(render);
