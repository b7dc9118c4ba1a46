/** Renders list_order_exceptions: the queue, most urgent first, one row per stuck order. */
import type { z } from "zod/v4";
import type { ExceptionListSchema } from "../src/orders/tool-outputs";
import { badge, duration, h, money, unbroken } from "./dom";
import { startCard } from "./host";
import { words } from "./words";

type ExceptionList = z.output<typeof ExceptionListSchema>;

const PRIORITY_TONE: Readonly<Record<string, string>> = { P1: "bad", P2: "warn" };

function render(data: ExceptionList): Node {
  const items = Array.isArray(data.exceptions) ? data.exceptions : [];
  const breached = items.filter((item) => item.sla_breached).length;
  return h(
    "section",
    null,
    h(
      "div",
      { class: "head" },
      h("h1", null, "Stuck orders"),
      h(
        "span",
        { class: "muted", id: "count" },
        `${items.length} active${breached ? `, ${breached} past their response SLA` : ""}`,
      ),
    ),
    items.length === 0
      ? h("p", { class: "muted" }, "No order has an active exception.")
      : h(
          "ol",
          { class: "queue" },
          items.map((item) =>
            h(
              "li",
              { class: "row", "data-order": item.order_id },
              h(
                "div",
                { class: "line" },
                badge(item.priority, PRIORITY_TONE[item.priority] ?? "muted"),
                h("strong", { class: "mono" }, item.order_id),
                h("span", null, words.exception(item.exception_type)),
                item.sla_breached && badge("SLA breached", "bad"),
              ),
              h(
                "div",
                { class: "line muted small" },
                h("span", null, item.customer_name),
                h("span", { class: "nowrap" }, money(item.order_value_cents, item.currency)),
                h("span", null, `open ${duration(item.age_minutes)} of ${duration(item.sla_minutes)} SLA`),
                h("span", null, item.assigned_team),
              ),
              h("p", { class: "summary" }, unbroken(words.text(item.summary))),
            ),
          ),
        ),
    h(
      "p",
      { class: "muted small" },
      "Ask the agent to explain an order's evidence or to propose a fix; a person approves every fix in the approval app.",
    ),
  );
}

startCard(render);
