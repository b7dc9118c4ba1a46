import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { standardSignature, webhookHeaders } from "../../src/notify/signature";

// The signatures receivers check. The expected values were computed outside
// this code, with openssl:
//   standard, whsec_ secret: printf '%s' '<id>.<t>.<body>' | openssl dgst -sha256 -mac HMAC -macopt hexkey:<key in hex>
// -binary | base64
//   standard, raw secret:    printf '%s' '<id>.<t>.<body>' | openssl dgst -sha256 -hmac <secret> -binary | base64

const BODY = '{"id":"evt","type":"proposal.created"}';
const ID = "acme/prop_x:proposed/approvals/proposal.created";
const TIMESTAMP = 1767225600; // 2026-01-01T00:00:00Z
/** The bytes 0, 1, … 31, written as Standard Webhooks writes a secret. */
const WHSEC = "whsec_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";
const WHSEC_BASE64 = "eOge2Q+jQokKQa6ppzI9ZqJI0KXYyYg4KBO7thbR4nQ=";
/** A secret from before whsec_ secrets: used as written. */
const RAW = "whsec-test-vector";
const RAW_BASE64 = "OBbADrX/rFL58qrDpRvVFshDB64Czhu6yxgbrWCGXGk=";

describe("Standard Webhooks signatures", () => {
  it("webhook-signature is v1, and the base64 HMAC-SHA256 of '<id>.<timestamp>.<raw body>' under the decoded whsec_ key", async () => {
    expect(await standardSignature(WHSEC, ID, TIMESTAMP, BODY)).toBe(`v1,${WHSEC_BASE64}`);
  });

  it("a secret without the prefix signs with its bytes as written (the libraries' raw format)", async () => {
    expect(await standardSignature(RAW, ID, TIMESTAMP, BODY)).toBe(`v1,${RAW_BASE64}`);
  });

  it("another secret, id, timestamp or body gives another signature", async () => {
    const others = await Promise.all([
      standardSignature("whsec_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh4=", ID, TIMESTAMP, BODY),
      standardSignature(WHSEC, `${ID}x`, TIMESTAMP, BODY),
      standardSignature(WHSEC, ID, TIMESTAMP + 1, BODY),
      standardSignature(WHSEC, ID, TIMESTAMP, `${BODY} `),
    ]);
    expect(others.every((value) => /^v1,[A-Za-z0-9+/]{43}=$/.test(value) && value !== `v1,${WHSEC_BASE64}`)).toBe(true);
  });

  it("the standardwebhooks library verifies a delivery signed now, with either kind of secret, and refuses another secret", async () => {
    for (const [secret, webhook] of [
      [WHSEC, new Webhook(WHSEC)],
      [RAW, new Webhook(RAW, { format: "raw" })],
    ] as const) {
      const headers = await webhookHeaders({
        eventId: ID,
        eventType: "proposal.created",
        body: BODY,
        secret,
        now: new Date(),
      });
      expect(webhook.verify(BODY, headers), secret).toEqual(JSON.parse(BODY));
      expect(() => webhook.verify(BODY.replace("evt", "evu"), headers)).toThrow("No matching signature found");
    }
    const headers = await webhookHeaders({
      eventId: ID,
      eventType: "proposal.created",
      body: BODY,
      secret: WHSEC,
      now: new Date(),
    });
    expect(() => new Webhook(RAW, { format: "raw" }).verify(BODY, headers)).toThrow("No matching signature found");
  });
});

describe("a delivery's headers", () => {
  it("the Standard Webhooks three and the event type, nothing more (the pre-standard three are removed); the id is the event id, the timestamp the attempt's second", async () => {
    const headers = await webhookHeaders({
      eventId: ID,
      eventType: "proposal.created",
      body: BODY,
      secret: WHSEC,
      now: new Date(TIMESTAMP * 1000 + 999),
    });
    expect(headers).toEqual({
      "content-type": "application/json",
      "user-agent": "order-ops-edge-webhooks",
      "webhook-id": ID,
      "webhook-timestamp": String(TIMESTAMP),
      "webhook-signature": `v1,${WHSEC_BASE64}`,
      "X-Order-Ops-Event": "proposal.created",
    });
  });

  it("a retry an hour later has the same webhook-id and a new timestamp and signature", async () => {
    const at = (ms: number) =>
      webhookHeaders({ eventId: ID, eventType: "proposal.created", body: BODY, secret: WHSEC, now: new Date(ms) });
    const [first, retry] = await Promise.all([at(TIMESTAMP * 1000), at((TIMESTAMP + 3600) * 1000)]);
    expect(retry["webhook-id"]).toBe(first["webhook-id"]);
    expect(retry["webhook-timestamp"]).toBe(String(TIMESTAMP + 3600));
    expect(retry["webhook-signature"]).not.toBe(first["webhook-signature"]);
  });
});
