import { describe, expect, it } from "vitest";
import { fetchWithEnv, PRODUCTION_ENV } from "../helpers/app-with-env";
import { failure, parsed } from "../helpers/config";

// NOTIFY_WEBHOOK_URL / NOTIFY_WEBHOOK_SECRET and DOWNSTREAM_WEBHOOK_URL /
// DOWNSTREAM_WEBHOOK_SECRET: where the outbox delivers, checked once at
// startup with messages that say what to set. (BASE makes these production.)

const DEV = { ENVIRONMENT: "development" };
const SECRET = "0123456789abcdef0123456789abcdef";

describe("webhook configuration", () => {
  it("is unset by default: no destination, so no outbox rows", () => {
    expect(parsed({}).webhooks).toEqual({ approvals: undefined, downstream: undefined });
  });

  it("each destination is its URL with its own secret; a query is kept (some receivers carry a token there)", () => {
    const config = parsed({
      NOTIFY_WEBHOOK_URL: "https://hooks.slack.com/services/T000/B000/XXXX",
      NOTIFY_WEBHOOK_SECRET: SECRET,
      DOWNSTREAM_WEBHOOK_URL: "https://Events.Example.com/order-ops?tenant=acme",
      DOWNSTREAM_WEBHOOK_SECRET: `${SECRET}-downstream`,
    });
    expect(config.webhooks).toEqual({
      approvals: { url: "https://hooks.slack.com/services/T000/B000/XXXX", secret: SECRET },
      downstream: { url: "https://events.example.com/order-ops?tenant=acme", secret: `${SECRET}-downstream` },
    });
  });

  it("one destination alone is fine", () => {
    expect(
      parsed({ DOWNSTREAM_WEBHOOK_URL: "https://events.example.com/in", DOWNSTREAM_WEBHOOK_SECRET: SECRET }).webhooks
        .approvals,
    ).toBeUndefined();
  });

  it("a URL needs its secret, and a secret its URL", () => {
    expect(failure({ NOTIFY_WEBHOOK_URL: "https://hooks.example.com/in" }).errors).toEqual([
      "NOTIFY_WEBHOOK_SECRET is required when NOTIFY_WEBHOOK_URL is set: every delivery is signed with it (set it with `wrangler secret put NOTIFY_WEBHOOK_SECRET` to a Standard Webhooks secret, e.g. the output of `echo whsec_$(openssl rand -base64 32)`)",
    ]);
    expect(failure({ DOWNSTREAM_WEBHOOK_SECRET: SECRET }).errors).toEqual([
      "DOWNSTREAM_WEBHOOK_SECRET is set but DOWNSTREAM_WEBHOOK_URL is not; set DOWNSTREAM_WEBHOOK_URL to the receiver's URL or remove the secret",
    ]);
  });

  it.each([
    [
      "not a URL",
      "hooks.example.com/in",
      "NOTIFY_WEBHOOK_URL: must be the receiver's URL, like https://hooks.example.com/order-ops",
    ],
    ["another scheme", "ftp://hooks.example.com/in", "NOTIFY_WEBHOOK_URL: must start with https://"],
    [
      "credentials in the URL",
      "https://ada:pw@hooks.example.com/in",
      "NOTIFY_WEBHOOK_URL: must not hold a user name or password; deliveries are signed with the secret instead",
    ],
    ["a fragment", "https://hooks.example.com/in#x", "NOTIFY_WEBHOOK_URL: must not have a fragment"],
  ])("refuses %s", (_label, url, message) => {
    expect(failure({ NOTIFY_WEBHOOK_URL: url, NOTIFY_WEBHOOK_SECRET: SECRET }).errors).toEqual([message]);
  });

  it("production refuses plain http and this machine, at startup", () => {
    expect(
      failure({ NOTIFY_WEBHOOK_URL: "http://hooks.example.com/in", NOTIFY_WEBHOOK_SECRET: SECRET }).errors,
    ).toEqual(["NOTIFY_WEBHOOK_URL must use https in production"]);
    expect(
      failure({ DOWNSTREAM_WEBHOOK_URL: "https://localhost:9443/in", DOWNSTREAM_WEBHOOK_SECRET: SECRET }).errors,
    ).toEqual([
      "DOWNSTREAM_WEBHOOK_URL points at this machine (localhost or a loopback address), which a deployed Worker cannot reach; use the receiver's public https URL",
    ]);
  });

  it("production wants a secret without the whsec_ prefix to be 32 characters or more, and never repeats it", () => {
    const error = failure({
      NOTIFY_WEBHOOK_URL: "https://hooks.example.com/in",
      NOTIFY_WEBHOOK_SECRET: "short-secret",
    });
    expect(error.errors).toEqual([
      "NOTIFY_WEBHOOK_SECRET is too short: production needs at least 32, or a Standard Webhooks secret (try `echo whsec_$(openssl rand -base64 32)`)",
    ]);
    expect(error.message).not.toContain("short-secret");
  });

  it("development also allows plain http on this machine, and short secrets", () => {
    for (const url of ["http://127.0.0.1:9000/in", "http://localhost:9000/in", "http://[::1]:9000/in"]) {
      expect(parsed({ ...DEV, NOTIFY_WEBHOOK_URL: url, NOTIFY_WEBHOOK_SECRET: "dev" }).webhooks.approvals).toEqual({
        url,
        secret: "dev",
      });
    }
  });

  it("development refuses plain http to any other host", () => {
    expect(
      failure({ ...DEV, NOTIFY_WEBHOOK_URL: "http://10.0.0.5:8080/in", NOTIFY_WEBHOOK_SECRET: "dev" }).errors,
    ).toEqual([
      "NOTIFY_WEBHOOK_URL may use plain http only on this machine (localhost, 127.0.0.1, [::1]); use https for any other host",
    ]);
  });

  it("a deployed Worker with a plain-http webhook does not start: its routes answer 503 naming the variable", async () => {
    const response = await fetchWithEnv(new Request("https://ops.example.com/.well-known/oauth-authorization-server"), {
      ...PRODUCTION_ENV,
      NOTIFY_WEBHOOK_URL: "http://hooks.example.com/in",
      NOTIFY_WEBHOOK_SECRET: SECRET,
    });
    expect(response.status).toBe(503);
    expect(((await response.json()) as { message: string }).message).toContain(
      "NOTIFY_WEBHOOK_URL must use https in production",
    );
  });
});
