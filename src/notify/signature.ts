/**
 * How a receiver knows a delivery came from this Worker and was not replayed
 * later: `X-Order-Ops-Signature: t=<unix seconds>,v1=<hex>`, where v1 is
 * HMAC-SHA256 with the destination's secret over `<t>.<raw body>`. The
 * timestamp is inside what is signed, so a receiver that refuses old ones
 * (the verifier in docs/webhooks.md allows five minutes) cannot be fed an old delivery.
 */

export const SIGNATURE_HEADER = "X-Order-Ops-Signature";
export const TIMESTAMP_HEADER = "X-Order-Ops-Timestamp";
export const EVENT_TYPE_HEADER = "X-Order-Ops-Event";
export const IDEMPOTENCY_HEADER = "Idempotency-Key";

function hex(bytes: ArrayBuffer): string {
  return Array.from(new Uint8Array(bytes), (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** Lowercase hex HMAC-SHA256 of `<timestamp>.<body>` under `secret`. */
export async function webhookSignature(secret: string, timestamp: number, body: string): Promise<string> {
  const encoder = new TextEncoder();
  const key = await crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
  ]);
  return hex(await crypto.subtle.sign("HMAC", key, encoder.encode(`${timestamp}.${body}`)));
}

/** Every header of one delivery attempt; `now` is the attempt's time, so each retry is signed afresh. */
export async function webhookHeaders(input: {
  eventId: string;
  eventType: string;
  body: string;
  secret: string;
  now: Date;
}): Promise<Record<string, string>> {
  const timestamp = Math.floor(input.now.getTime() / 1000);
  const signature = await webhookSignature(input.secret, timestamp, input.body);
  return {
    "content-type": "application/json",
    "user-agent": "order-ops-edge-webhooks",
    [IDEMPOTENCY_HEADER]: input.eventId,
    [EVENT_TYPE_HEADER]: input.eventType,
    [TIMESTAMP_HEADER]: String(timestamp),
    [SIGNATURE_HEADER]: `t=${timestamp},v1=${signature}`,
  };
}
