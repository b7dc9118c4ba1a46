import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { fetchWithEnv, PRODUCTION_ENV } from "../helpers/app-with-env";
import { initializeRequest, mcpHeaders } from "../helpers/mcp-raw";
import { type ErrorBody, postOrder, type Receipt, readJson, uniqueRequestId, validOrder } from "../helpers/orders";
import { countOrdersFor } from "../helpers/rows";
import { ACME_APPROVER_TOKEN, ACME_TOKEN, PRODUCTION_TOKEN } from "../helpers/tokens";

// /api, /api/approvals and /api/audit follow the same origin policy as /mcp: a request
// that carries an Origin must come from an allowed one, and in development a
// request must be addressed to this machine, so a DNS-rebinding page cannot
// use the developer's PUBLIC_INTAKE_ACCOUNT.

const EVIL = "https://evil.example";
const REBOUND = "http://attacker.example:8787";

function jsonPost(url: string, body: unknown, headers: Record<string, string> = {}): Request {
  return new Request(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
}

describe("/api in development", () => {
  it("a foreign Origin cannot create an order through the public intake account: 403, nothing stored", async () => {
    const requestId = uniqueRequestId("evil-origin");
    const response = await exports.default.fetch(
      jsonPost("http://localhost/api/orders", validOrder(requestId), { origin: EVIL }),
    );
    expect(response.status).toBe(403);
    expect(await readJson<ErrorBody>(response)).toEqual({
      code: "forbidden",
      message: `origin ${EVIL} is not allowed to call this API; add it to ALLOWED_ORIGINS if it should be`,
    });
    expect(await countOrdersFor("acme", requestId)).toBe(0);
  });

  it("a rebound host name cannot read the developer's orders, even without an Origin (a same-origin GET has none)", async () => {
    const created = await postOrder(validOrder(uniqueRequestId("rebind-read")));
    const { order_id } = await readJson<Receipt>(created);
    expect((await exports.default.fetch(`http://localhost/api/orders/${order_id}`)).status).toBe(200);

    const response = await exports.default.fetch(`${REBOUND}/api/orders/${order_id}`);
    expect(response.status).toBe(403);
    const body = await readJson<ErrorBody>(response);
    expect(body.code).toBe("forbidden");
    expect(body.message).toBe(
      "host attacker.example:8787 is not one this API answers to; add it to ALLOWED_HOSTS if it should be",
    );
  });

  it("a rebound host name cannot create orders either", async () => {
    const requestId = uniqueRequestId("rebind-write");
    const response = await exports.default.fetch(
      jsonPost(`${REBOUND}/api/orders`, validOrder(requestId), { origin: REBOUND }),
    );
    expect(response.status).toBe(403);
    expect(await countOrdersFor("acme", requestId)).toBe(0);
  });

  it.each(["http://localhost:5173", "http://127.0.0.1:8787", "http://[::1]:8787"])(
    "a loopback Origin %s passes, as on /mcp",
    async (origin) => {
      const response = await exports.default.fetch(
        jsonPost("http://localhost/api/orders", validOrder(uniqueRequestId("loopback")), { origin }),
      );
      expect(response.status).toBe(201);
    },
  );

  it("requests to 127.0.0.1 and [::1] are served (the smoke and bench scripts use them)", async () => {
    for (const host of ["127.0.0.1:8787", "[::1]:8787"]) {
      expect((await exports.default.fetch(`http://${host}/api/health`)).status).toBe(200);
    }
  });

  it("PUBLIC_BASE_URL's host is served in development (a LAN address for a phone, say)", async () => {
    const base = "http://devbox.lan:8787";
    const served = await fetchWithEnv(new Request(`${base}/api/health`), { PUBLIC_BASE_URL: base });
    expect(served.status).toBe(200);
    const other = await fetchWithEnv(new Request("http://otherbox.lan:8787/api/health"), { PUBLIC_BASE_URL: base });
    expect(other.status).toBe(403);
  });
});

describe("/api/approvals", () => {
  it("a foreign Origin is refused before the token is looked at: 403", async () => {
    const response = await exports.default.fetch(
      jsonPost(
        "http://localhost/api/approvals/prop_doesnotexist000000",
        { decision: "approve", reason: "from evil" },
        { origin: EVIL, authorization: `Bearer ${ACME_APPROVER_TOKEN}` },
      ),
    );
    expect(response.status).toBe(403);
    expect((await readJson<ErrorBody>(response)).message).toContain(`origin ${EVIL} is not allowed`);
  });

  it("a rebound host name is refused: 403", async () => {
    const response = await exports.default.fetch(
      new Request(`${REBOUND}/api/approvals`, { headers: { authorization: `Bearer ${ACME_APPROVER_TOKEN}` } }),
    );
    expect(response.status).toBe(403);
  });
});

describe("/api/audit", () => {
  // A page that got an approver's token into the browser must not pull the whole trail from another origin.
  it("a foreign Origin is refused before the token is looked at: 403, nothing exported", async () => {
    const response = await exports.default.fetch(
      new Request("http://localhost/api/audit", {
        headers: { origin: EVIL, authorization: `Bearer ${ACME_APPROVER_TOKEN}` },
      }),
    );
    expect(response.status).toBe(403);
    expect(response.headers.get("content-disposition")).toBeNull();
    expect((await readJson<ErrorBody>(response)).message).toBe(
      `origin ${EVIL} is not allowed to call this API; add it to ALLOWED_ORIGINS if it should be`,
    );
  });

  it("a rebound host name is refused: 403", async () => {
    const response = await exports.default.fetch(
      new Request(`${REBOUND}/api/audit`, { headers: { authorization: `Bearer ${ACME_APPROVER_TOKEN}` } }),
    );
    expect(response.status).toBe(403);
  });

  it("a loopback Origin passes, as on /api/approvals", async () => {
    const response = await exports.default.fetch(
      new Request("http://localhost/api/audit", {
        headers: { origin: "http://localhost:5173", authorization: `Bearer ${ACME_APPROVER_TOKEN}` },
      }),
    );
    expect(response.status).toBe(200);
    await response.body?.cancel();
  });
});

describe("/mcp", () => {
  it("a rebound host name is refused in development: 403", async () => {
    const response = await exports.default.fetch(
      new Request(`${REBOUND}/mcp`, {
        method: "POST",
        headers: mcpHeaders({ token: ACME_TOKEN }),
        body: JSON.stringify(initializeRequest(1, "2025-06-18")),
      }),
    );
    expect(response.status).toBe(403);
  });
});

describe("in production", () => {
  const headers = { authorization: `Bearer ${PRODUCTION_TOKEN}` };

  it("a localhost Origin is refused on /api unless it is in ALLOWED_ORIGINS", async () => {
    const origin = "http://localhost:5173";
    const order = validOrder(uniqueRequestId("prod-origin"));
    const refused = await fetchWithEnv(
      jsonPost("https://ops.example.com/api/orders", order, { ...headers, origin }),
      PRODUCTION_ENV,
    );
    expect(refused.status).toBe(403);
    const allowed = await fetchWithEnv(jsonPost("https://ops.example.com/api/orders", order, { ...headers, origin }), {
      ...PRODUCTION_ENV,
      ALLOWED_ORIGINS: origin,
    });
    expect(allowed.status).toBe(201);
  });

  // The reason origin-guard.ts keeps its own check rather than the MCP SDK's originValidationResponse,
  // which compares host names only: the same host over http, or on another port, is another origin.
  it("an ALLOWED_ORIGINS entry is matched as a whole origin: its host over http or on another port is refused", async () => {
    const env = { ...PRODUCTION_ENV, ALLOWED_ORIGINS: "https://app.example.com" };
    const health = (origin: string) =>
      fetchWithEnv(new Request("https://ops.example.com/api/health", { headers: { ...headers, origin } }), env);
    expect((await health("https://app.example.com")).status).toBe(200);
    for (const origin of ["http://app.example.com", "https://app.example.com:8443"]) {
      const response = await health(origin);
      expect(response.status, origin).toBe(403);
      expect((await readJson<ErrorBody>(response)).message).toBe(
        `origin ${origin} is not allowed to call this API; add it to ALLOWED_ORIGINS if it should be`,
      );
    }
  });

  it("only PUBLIC_BASE_URL's host and ALLOWED_HOSTS are served: another name the Worker is reachable by must be listed", async () => {
    const other = new Request("https://order-ops-edge.someone.workers.dev/api/health", { headers });
    expect((await fetchWithEnv(other, PRODUCTION_ENV)).status).toBe(403);
    expect(
      (await fetchWithEnv(other.clone(), { ...PRODUCTION_ENV, ALLOWED_HOSTS: "order-ops-edge.someone.workers.dev" }))
        .status,
    ).toBe(200);
    expect(
      (await fetchWithEnv(new Request("https://ops.example.com/api/health", { headers }), PRODUCTION_ENV)).status,
    ).toBe(200);
  });
});
