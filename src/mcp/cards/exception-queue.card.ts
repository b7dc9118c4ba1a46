import { appCard } from "./card-page";

/**
 * Renders list_order_exceptions (cards/exception-queue-card.ts): the queue, most urgent first, one row per stuck order.
 */
export const exceptionQueueCard = appCard({
  name: "exception-queue-card",
  uri: "ui://order-ops/exception-queue.html",
  title: "Stuck orders",
  description:
    "Card for list_order_exceptions: the stuck orders, most urgent first, with priority, exception, SLA and value.",
});
