import { describe, expect, it } from "vitest";
import { webhookHeaders, webhookSignature } from "../../src/notify/signature";

// The signature receivers check. The expected hex was computed outside this
// code, with `printf '%s' '<t>.<body>' | openssl dgst -sha256 -hmac <secret>`.

const BODY = '{"id":"evt","type":"proposal.created"}';
const TIMESTAMP = 1767225600; // 2026-01-01T00:00:00Z
const OPENSSL_HEX = "86c5c9310e8f7de1ec590dc49dff0c994fe9020d67dea7efa238369ee9e4176c";

describe("webhook signatures", () => {
  it("v1 is HMAC-SHA256 over '<timestamp>.<raw body>', as openssl computes it", async () => {
    expect(await webhookSignature("whsec-test-vector", TIMESTAMP, BODY)).toBe(OPENSSL_HEX);
  });

  it("another secret, timestamp or body gives another signature", async () => {
    const others = await Promise.all([
      webhookSignature("whsec-test-vectoR", TIMESTAMP, BODY),
      webhookSignature("whsec-test-vector", TIMESTAMP + 1, BODY),
      webhookSignature("whsec-test-vector", TIMESTAMP, `${BODY} `),
    ]);
    expect(others.every((hex) => /^[0-9a-f]{64}$/.test(hex) && hex !== OPENSSL_HEX)).toBe(true);
  });

  it("every delivery carries the idempotency key, the event type, the timestamp and t=<unix>,v1=<hex>", async () => {
    const headers = await webhookHeaders({
      eventId: "acme/x/approvals/proposal.created",
      eventType: "proposal.created",
      body: BODY,
      secret: "whsec-test-vector",
      now: new Date(TIMESTAMP * 1000 + 999),
    });
    expect(headers).toEqual({
      "content-type": "application/json",
      "user-agent": "order-ops-edge-webhooks",
      "Idempotency-Key": "acme/x/approvals/proposal.created",
      "X-Order-Ops-Event": "proposal.created",
      "X-Order-Ops-Timestamp": String(TIMESTAMP),
      "X-Order-Ops-Signature": `t=${TIMESTAMP},v1=${OPENSSL_HEX}`,
    });
  });
});
