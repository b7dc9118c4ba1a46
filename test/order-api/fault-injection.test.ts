import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import type { Config } from "../../src/config/config";
import { IntakeFaultsSchema } from "../../src/config/intake-faults";
import type { AppEnv } from "../../src/http/app-env";
import { intakeFaults, planFault } from "../../src/order-api/fault-injection";

// The timing rule of INTAKE_FAULTS on an injected clock: nothing here sleeps.

const faults = (spec: string) => IntakeFaultsSchema.parse(spec);
/** A wall-clock instant that starts a 5-second window. */
const WINDOW = Date.parse("2026-12-01T10:00:05.000Z");

describe("planFault: stall=1000ms/5s", () => {
  const stall = faults("stall=1000ms/5s");

  it("holds an order that arrives during the stall until the stall ends", () => {
    expect(planFault(stall, WINDOW, 0.5).delayMs).toBe(1000);
    expect(planFault(stall, WINDOW + 1, 0.5).delayMs).toBe(999);
    expect(planFault(stall, WINDOW + 400, 0.5).delayMs).toBe(600);
    expect(planFault(stall, WINDOW + 999, 0.5).delayMs).toBe(1);
  });

  it("lets the rest of the window through at once", () => {
    expect(planFault(stall, WINDOW + 1000, 0.5).delayMs).toBe(0);
    expect(planFault(stall, WINDOW + 4999, 0.5).delayMs).toBe(0);
  });

  it("stalls again in every window, at the same wall-clock instants in every isolate", () => {
    for (let window = 1; window <= 3; window++) {
      expect(planFault(stall, WINDOW + window * 5000 + 250, 0.5).delayMs).toBe(750);
      expect(planFault(stall, WINDOW + window * 5000 + 2500, 0.5).delayMs).toBe(0);
    }
  });

  it("every order that arrives in one stall is answered at the same instant: a frozen API", () => {
    const answeredAt = [0, 100, 500, 900].map(
      (offset) => WINDOW + offset + planFault(stall, WINDOW + offset, 0.5).delayMs,
    );
    expect(new Set(answeredAt)).toEqual(new Set([WINDOW + 1000]));
  });
});

describe("planFault: latency and fail", () => {
  it("adds the latency to every order, after the rest of a stall", () => {
    const both = faults("stall=1s/5s,latency=20ms");
    expect(planFault(both, WINDOW + 300, 0.5).delayMs).toBe(720);
    expect(planFault(both, WINDOW + 3000, 0.5).delayMs).toBe(20);
  });

  it("fails the orders whose draw falls below the share", () => {
    const fail = faults("fail=2%");
    expect(planFault(fail, WINDOW, 0).fail).toBe(true);
    expect(planFault(fail, WINDOW, 0.0199).fail).toBe(true);
    expect(planFault(fail, WINDOW, 0.02).fail).toBe(false);
    expect(planFault(fail, WINDOW, 0.99).fail).toBe(false);
    expect(planFault(faults("fail=0%"), WINDOW, 0).fail).toBe(false);
    expect(planFault(faults("fail=100%"), WINDOW, 0.9999).fail).toBe(true);
  });
});

describe("the intakeFaults middleware", () => {
  function app(spec: string | undefined, clock: { now: number; draw: number }) {
    const slept: number[] = [];
    const api = new Hono<AppEnv>();
    api.use("*", async (c, next) => {
      c.set("config", { intakeFaults: spec === undefined ? undefined : faults(spec) } as Config);
      await next();
    });
    const middleware = intakeFaults<AppEnv>({
      now: () => clock.now,
      sleep: async (ms) => void slept.push(ms),
      random: () => clock.draw,
    });
    api.post("/orders", middleware, (c) => c.json({ handled: true }, 201));
    return { api, slept };
  }

  it("sleeps for the planned delay, then hands the order on", async () => {
    const { api, slept } = app("stall=1000ms/5s,latency=20ms", { now: WINDOW + 250, draw: 0.5 });
    const response = await api.request("/orders", { method: "POST" });
    expect(response.status).toBe(201);
    expect(slept).toEqual([770]);
  });

  it("answers a failed order 503 with a readable error, after the delay, and never hands it on", async () => {
    const { api, slept } = app("latency=5ms,fail=50%", { now: WINDOW, draw: 0.1 });
    const response = await api.request("/orders", { method: "POST" });
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({
      code: "unavailable",
      message:
        "failed on purpose: this server's INTAKE_FAULTS (latency=5ms,fail=50%) fails a share of orders; this one was not stored, so sending it again is safe",
    });
    expect(slept).toEqual([5]);
  });

  it("without INTAKE_FAULTS neither sleeps nor fails", async () => {
    const { api, slept } = app(undefined, { now: WINDOW, draw: 0 });
    expect((await api.request("/orders", { method: "POST" })).status).toBe(201);
    expect(slept).toEqual([]);
  });
});
