import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { OrderApi } from "../../src/order-api/entrypoint";
import { fetchWithEnv, PRODUCTION_ENV } from "../helpers/app-with-env";
import { type ErrorBody, readJson, uniqueRequestId, validOrder } from "../helpers/orders";
import { countOrdersFor } from "../helpers/rows";

// INTAKE_FAULTS end to end: the public POST /api/orders and the ORDER_API
// entrypoint's intake are slowed and failed as configured; health and order
// reads are not.

const LATENCY_MS = 60;

function post(body: unknown, origin = "http://localhost"): Request {
  return new Request(`${origin}/api/orders`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

async function timed(answer: () => Promise<Response>): Promise<{ response: Response; ms: number }> {
  const started = Date.now();
  const response = await answer();
  await response.clone().arrayBuffer();
  return { response, ms: Date.now() - started };
}

describe("INTAKE_FAULTS on POST /api/orders", () => {
  it("latency holds every order for at least the configured time, then takes it", async () => {
    const requestId = uniqueRequestId("latency");
    const { response, ms } = await timed(() =>
      fetchWithEnv(post(validOrder(requestId)), { INTAKE_FAULTS: `latency=${LATENCY_MS}ms` }),
    );
    expect(response.status).toBe(201);
    expect(ms).toBeGreaterThanOrEqual(LATENCY_MS);
    expect(await countOrdersFor("acme", requestId)).toBe(1);
  });

  it("fail=100% answers 503 with the reason and stores nothing; without the faults the same order is taken", async () => {
    const requestId = uniqueRequestId("fail");
    const failed = await fetchWithEnv(post(validOrder(requestId)), { INTAKE_FAULTS: "fail=100%" });
    expect(failed.status).toBe(503);
    expect(await readJson<ErrorBody>(failed)).toEqual({
      code: "unavailable",
      message:
        "failed on purpose: this server's INTAKE_FAULTS (fail=100%) fails a share of orders; this one was not stored, so sending it again is safe",
    });
    expect(await countOrdersFor("acme", requestId)).toBe(0);
    expect((await fetchWithEnv(post(validOrder(requestId)))).status).toBe(201);
  });

  it("never touches /health, /api/health or order reads", async () => {
    const faulty = { INTAKE_FAULTS: "fail=100%,latency=2s" };
    for (const path of ["/health", "/api/health", "/api/orders/ORD-unknown"]) {
      const { response, ms } = await timed(() => fetchWithEnv(new Request(`http://localhost${path}`), faulty));
      expect(response.status, path).not.toBe(503);
      expect(ms, path).toBeLessThan(2000);
    }
  });

  it("is refused in production without INTAKE_FAULTS_IN_PRODUCTION: the API says what to fix instead of failing orders", async () => {
    const response = await fetchWithEnv(post(validOrder(uniqueRequestId("prod"))), {
      ...PRODUCTION_ENV,
      INTAKE_FAULTS: "fail=100%",
    });
    expect(response.status).toBe(503);
    const body = await readJson<ErrorBody>(response);
    expect(body.code).toBe("not_configured");
    expect(body.errors).toEqual([
      "INTAKE_FAULTS makes the built-in order API slow or fail on purpose and is refused in production; remove it, or also set INTAKE_FAULTS_IN_PRODUCTION=on if this deployment is meant for fault drills",
    ]);
  });

  it("applies in production with INTAKE_FAULTS_IN_PRODUCTION=on", async () => {
    const response = await fetchWithEnv(post(validOrder(uniqueRequestId("prod-on")), PRODUCTION_ENV.PUBLIC_BASE_URL), {
      ...PRODUCTION_ENV,
      INTAKE_FAULTS: "fail=100%",
      INTAKE_FAULTS_IN_PRODUCTION: "on",
    });
    expect((await readJson<ErrorBody>(response)).code).toBe("unavailable");
  });
});

describe("INTAKE_FAULTS on the ORDER_API entrypoint", () => {
  function entrypoint(vars: Record<string, string>): OrderApi {
    return new OrderApi(createExecutionContext(), { ...env, ...vars } as Env);
  }

  function internalPost(api: OrderApi, body: unknown): Promise<Response> {
    return api.fetch(
      new Request("https://order-api.binding/api/orders", {
        method: "POST",
        headers: { "content-type": "application/json", "x-order-ops-account": "globex" },
        body: JSON.stringify(body),
      }),
    );
  }

  it("fails the orders synthetic traffic sends, as configured", async () => {
    const requestId = uniqueRequestId("entry-fail");
    const response = await internalPost(entrypoint({ INTAKE_FAULTS: "fail=100%" }), validOrder(requestId));
    expect(response.status).toBe(503);
    expect(await countOrdersFor("globex", requestId)).toBe(0);
  });

  it("delays them, and answers its health check at once", async () => {
    const api = entrypoint({ INTAKE_FAULTS: `latency=${LATENCY_MS}ms` });
    const requestId = uniqueRequestId("entry-late");
    const order = await timed(() => internalPost(api, validOrder(requestId)));
    expect(order.response.status).toBe(201);
    expect(order.ms).toBeGreaterThanOrEqual(LATENCY_MS);
    const health = await api.fetch(new Request("https://order-api.binding/api/health"));
    expect(health.status).toBe(200);
  });
});
