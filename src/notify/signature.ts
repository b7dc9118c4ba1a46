import { webhookSigningKey } from "../config/webhooks";

/**
 * How a receiver knows a delivery came from this Worker and was not replayed
 * later: Standard Webhooks 1.0.0 (https://www.standardwebhooks.com/), so any
 * of its libraries verifies one. `webhook-signature` is `v1,` and the base64
 * HMAC-SHA256, under the destination's key, of `<webhook-id>.<webhook-timestamp>.<raw body>`.
 * The id is the event's, the same on every attempt, so a receiver deduplicates
 * by it; the timestamp is the attempt's, inside what is signed, so a receiver
 * that refuses old ones (the libraries allow five minutes) cannot be fed an old delivery.
 *
 * The spec asks that the id carry no `.` unless no user controls it. Event
 * ids are built here from the account id, a generated proposal id and fixed
 * words (notify/events.ts), never from a request, so the event id goes as it is:
 * the same text as the body's `id`.
 */
export const WEBHOOK_ID_HEADER = "webhook-id";
export const WEBHOOK_TIMESTAMP_HEADER = "webhook-timestamp";
export const WEBHOOK_SIGNATURE_HEADER = "webhook-signature";
export const EVENT_TYPE_HEADER = "X-Order-Ops-Event";

async function hmacSha256(key: Uint8Array, text: string): Promise<Uint8Array> {
  const cryptoKey = await crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return new Uint8Array(await crypto.subtle.sign("HMAC", cryptoKey, new TextEncoder().encode(text)));
}

/** `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">` under the destination's key (webhookSigningKey). */
export async function standardSignature(secret: string, id: string, timestamp: number, body: string): Promise<string> {
  const mac = await hmacSha256(webhookSigningKey(secret), `${id}.${timestamp}.${body}`);
  return `v1,${btoa(String.fromCharCode(...mac))}`;
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
  const signature = await standardSignature(input.secret, input.eventId, timestamp, input.body);
  return {
    "content-type": "application/json",
    "user-agent": "order-ops-edge-webhooks",
    [WEBHOOK_ID_HEADER]: input.eventId,
    [WEBHOOK_TIMESTAMP_HEADER]: String(timestamp),
    [WEBHOOK_SIGNATURE_HEADER]: signature,
    [EVENT_TYPE_HEADER]: input.eventType,
  };
}
