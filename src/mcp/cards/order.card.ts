import { appCard } from "./card-page";

/** Renders get_order_details (cards/order-card.ts): the order, its exception, the evidence and the timeline. */
export const orderCard = appCard({
  name: "order-card",
  uri: "ui://order-ops/order.html",
  title: "Order evidence",
  description:
    "Card for get_order_details: the order, its exception, payment, inventory, fulfillment and duplicate evidence, and its timeline.",
});
