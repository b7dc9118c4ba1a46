import type { Webhook } from "../config/webhooks";
import { DELIVERY_TIMEOUT_MS, type DeliveryAttempt } from "../notify/retry-policy";
import { webhookHeaders } from "../notify/signature";
import type { OutboxRow } from "../store/outbox-delivery";

/** Enough of a receiver's answer to tell an admin what it said, never the whole page. */
const DETAIL_CHARS = 200;

/** Retry-After in seconds; an HTTP date is not worth parsing for a delay that is bounded anyway. */
function retryAfterSeconds(response: Response): number | undefined {
  const value = response.headers.get("retry-after");
  return value !== null && /^\d+$/.test(value.trim()) ? Number(value.trim()) : undefined;
}

/** One signed POST of the row's stored body; what happened, for judgeDelivery. */
export async function postWebhook(
  row: OutboxRow,
  webhook: Webhook,
  now: Date,
  fetcher: typeof fetch = fetch,
): Promise<DeliveryAttempt> {
  const headers = await webhookHeaders({
    eventId: row.event_id,
    eventType: row.event_type,
    body: row.payload,
    secret: webhook.secret,
    now,
  });
  let response: Response;
  try {
    // A redirect is not followed: the body would go to a URL nobody configured.
    response = await fetcher(webhook.url, {
      method: "POST",
      headers,
      body: row.payload,
      redirect: "manual",
      signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
    });
  } catch (error) {
    const timedOut = error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");
    return {
      kind: "unreachable",
      detail: timedOut
        ? `no answer within ${DELIVERY_TIMEOUT_MS / 1000} s`
        : `the receiver could not be reached: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
  const text = await response.text().catch(() => "");
  return {
    kind: "answered",
    status: response.status,
    retryAfterSeconds: retryAfterSeconds(response),
    detail: text.trim().slice(0, DETAIL_CHARS),
  };
}
