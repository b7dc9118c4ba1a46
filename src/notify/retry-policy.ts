/**
 * What one delivery attempt's result means. A 2xx is delivered. A network
 * error, a timeout, 408, 429 or a 5xx may pass, so it is retried with
 * exponential backoff. Any other answer (a 3xx, which is never followed, or a
 * 4xx) would be the same next time: it is dead-lettered at once, with the
 * receiver's status, instead of being retried until the queue gives up.
 */

/** The first retry waits this long; each later one twice as long as the one before. */
export const RETRY_BASE_SECONDS = 10;
/** No retry waits longer than this (Queues allows up to 12 hours). */
export const RETRY_MAX_DELAY_SECONDS = 60 * 60;
/** How long one attempt may take before it counts as a network error. */
export const DELIVERY_TIMEOUT_MS = 10_000;
/**
 * The drain leaves a row alone this long after it was written, while the
 * writer's own hand-off to the queue is still on its way.
 */
export const HAND_OFF_GRACE_SECONDS = 30;
export type DeliveryAttempt =
  | {
      readonly kind: "answered";
      readonly status: number;
      readonly retryAfterSeconds: number | undefined;
      readonly detail: string;
    }
  | { readonly kind: "unreachable"; readonly detail: string };

export type DeliveryVerdict =
  | { readonly kind: "delivered" }
  | { readonly kind: "retry"; readonly delaySeconds: number; readonly error: string }
  | { readonly kind: "dead"; readonly reason: string };

/** The wait before the next try after attempt `attempt` (1 for the first delivery). */
export function backoffSeconds(attempt: number): number {
  const exponent = Math.max(0, Math.min(attempt, 30) - 1);
  return Math.min(RETRY_BASE_SECONDS * 2 ** exponent, RETRY_MAX_DELAY_SECONDS);
}

export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

export function judgeDelivery(result: DeliveryAttempt, attempt: number): DeliveryVerdict {
  if (result.kind === "unreachable")
    return { kind: "retry", delaySeconds: backoffSeconds(attempt), error: result.detail };
  const { status, detail } = result;
  const answered = `the receiver answered ${status}${detail === "" ? "" : `: ${detail}`}`;
  if (status >= 200 && status < 300) return { kind: "delivered" };
  if (isRetryableStatus(status)) {
    // A receiver that says when to come back is believed, within the same ceiling.
    const asked = Math.min(result.retryAfterSeconds ?? 0, RETRY_MAX_DELAY_SECONDS);
    return { kind: "retry", delaySeconds: Math.max(backoffSeconds(attempt), asked), error: answered };
  }
  if (status >= 300 && status < 400)
    return {
      kind: "dead",
      reason: `${answered}; redirects are not followed, so set the webhook URL to where it points`,
    };
  return { kind: "dead", reason: `${answered}; a ${status} is not retried` };
}
