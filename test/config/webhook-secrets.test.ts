import { describe, expect, it } from "vitest";
import { webhookSigningKey } from "../../src/config/webhooks";
import { failure, parsed } from "../helpers/config";

// NOTIFY_WEBHOOK_SECRET and DOWNSTREAM_WEBHOOK_SECRET: a Standard Webhooks
// secret (whsec_ and the key in base64, as the spec writes it), or one set
// before those, used as written. (BASE makes these production.)

const URL_VAR = { NOTIFY_WEBHOOK_URL: "https://hooks.example.com/in" };
const DEV = { ENVIRONMENT: "development" };
/** 32 bytes, 0x00 to 0x1f. */
const WHSEC = "whsec_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";

describe("webhook secrets", () => {
  it("a whsec_ secret is taken as it is written, in production too", () => {
    expect(parsed({ ...URL_VAR, NOTIFY_WEBHOOK_SECRET: WHSEC }).webhooks.approvals).toEqual({
      url: "https://hooks.example.com/in",
      secret: WHSEC,
    });
  });

  it("the smallest and largest keys the spec allows (24 and 64 bytes) are accepted", () => {
    for (const bytes of [24, 64]) {
      const secret = `whsec_${btoa("k".repeat(bytes))}`;
      expect(parsed({ ...URL_VAR, NOTIFY_WEBHOOK_SECRET: secret }).webhooks.approvals?.secret).toBe(secret);
    }
  });

  it.each([
    ["a key of 23 bytes", `whsec_${btoa("k".repeat(23))}`],
    ["a key of 65 bytes", `whsec_${btoa("k".repeat(65))}`],
  ])("refuses %s, in development too, saying what the spec allows", (_label, secret) => {
    const bytes = atob(secret.slice("whsec_".length)).length;
    expect(failure({ ...DEV, ...URL_VAR, NOTIFY_WEBHOOK_SECRET: secret }).errors).toEqual([
      `NOTIFY_WEBHOOK_SECRET: holds a ${bytes}-byte key; Standard Webhooks keys are 24 to 64 bytes (\`echo whsec_$(openssl rand -base64 32)\` gives 32)`,
    ]);
  });

  it.each([
    ["URL-safe base64", "whsec_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh-_"],
    ["unpadded base64", "whsec_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"],
    ["hex", "whsec_000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f0"],
    ["nothing after the prefix", "whsec_"],
  ])("refuses a whsec_ secret in %s, naming the format and never repeating the secret", (_label, secret) => {
    const error = failure({
      ...URL_VAR,
      DOWNSTREAM_WEBHOOK_URL: "https://e.example.com/in",
      DOWNSTREAM_WEBHOOK_SECRET: secret,
      NOTIFY_WEBHOOK_SECRET: WHSEC,
    });
    expect(error.errors).toEqual([
      "DOWNSTREAM_WEBHOOK_SECRET: must be whsec_ followed by the key in base64 (A-Z, a-z, 0-9, + and /, padded with =), e.g. the output of `echo whsec_$(openssl rand -base64 32)`",
    ]);
    if (secret.length > "whsec_".length) expect(error.message).not.toContain(secret.slice("whsec_".length));
  });

  it("a secret set before whsec_ secrets keeps working: production still wants 32 characters, development takes any", () => {
    const hex = "0123456789abcdef0123456789abcdef";
    expect(parsed({ ...URL_VAR, NOTIFY_WEBHOOK_SECRET: hex }).webhooks.approvals?.secret).toBe(hex);
    expect(parsed({ ...DEV, ...URL_VAR, NOTIFY_WEBHOOK_SECRET: "dev" }).webhooks.approvals?.secret).toBe("dev");
  });

  it("a secret without the prefix must be ASCII: the libraries' raw format reads one byte per character", () => {
    expect(failure({ ...DEV, ...URL_VAR, NOTIFY_WEBHOOK_SECRET: "geheimnis-für-hooks" }).errors).toEqual([
      "NOTIFY_WEBHOOK_SECRET: must be printable ASCII; use a Standard Webhooks secret, e.g. the output of `echo whsec_$(openssl rand -base64 32)`",
    ]);
  });
});

describe("webhookSigningKey", () => {
  it("decodes a whsec_ secret's base64", () => {
    expect([...webhookSigningKey(WHSEC)]).toEqual(Array.from({ length: 32 }, (_, byte) => byte));
  });

  it("takes any other secret's bytes as written, even one that happens to be valid base64 (hex is)", () => {
    const hex = "0123456789abcdef0123456789abcdef";
    expect(new TextDecoder().decode(webhookSigningKey(hex))).toBe(hex);
    expect(webhookSigningKey(hex)).toHaveLength(32);
  });
});
