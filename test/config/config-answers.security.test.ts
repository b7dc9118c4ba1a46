import { describe, expect, it } from "vitest";
import { fetchWithEnv, PRODUCTION_ENV } from "../helpers/app-with-env";

// A configuration problem is answered (503, to anyone, before any authentication) naming the variable and what is
// wrong, never its value: a Slack webhook URL is itself a credential, and an adversarial run read one back in full
// from every route. The log may say more; the answer does not.

const SLACK_PATH = "/services/T0SECRET/B0SECRET/xoxSECRETxoxSECRETxox";
const SECRET = `whsec_${btoa("k".repeat(32))}`;

const CASES: Record<string, Record<string, string>> = {
  "a plain-http NOTIFY_WEBHOOK_URL": {
    NOTIFY_WEBHOOK_URL: `http://hooks.slack.com${SLACK_PATH}`,
    NOTIFY_WEBHOOK_SECRET: SECRET,
  },
  "a DOWNSTREAM_WEBHOOK_URL on this machine": {
    DOWNSTREAM_WEBHOOK_URL: `https://localhost${SLACK_PATH}`,
    DOWNSTREAM_WEBHOOK_SECRET: SECRET,
  },
  "a plain-http ORDER_API_URL": { ORDER_API_URL: `http://orders.internal.example${SLACK_PATH}` },
  "a plain-http PUBLIC_BASE_URL": { PUBLIC_BASE_URL: `http://ops.example.com${SLACK_PATH}` },
};

describe.each(Object.entries(CASES))("%s", (_name, vars) => {
  it.each(["/api/health", "/mcp", "/approvals", "/.well-known/oauth-authorization-server"])(
    "GET %s: 503 naming the variable, without its value",
    async (path) => {
      const response = await fetchWithEnv(new Request(`https://ops.example.com${path}`), {
        ...PRODUCTION_ENV,
        ...vars,
      });
      expect(response.status).toBe(503);
      const text = await response.text();
      expect(text).toContain(Object.keys(vars)[0]);
      expect(text).not.toContain("SECRET");
      expect(text).not.toContain(SLACK_PATH);
      expect(text).not.toMatch(/hooks\.slack\.com|orders\.internal|http:\/\/ops/);
    },
  );
});
