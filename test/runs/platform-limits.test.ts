import { describe, expect, it } from "vitest";
import { ok, type Result } from "../../src/core/errors";
import {
  CONNECTIONS_PER_INVOCATION,
  InvocationLimiter,
  PAID_SUBREQUESTS_PER_INVOCATION,
  SUBREQUEST_LIMIT_MESSAGE,
} from "../../src/core/platform-limits";
import type { Health, OrderRequest } from "../../src/orders/intake-schemas";
import { mergeFigures } from "../../src/runs/figures";
import { planRun } from "../../src/runs/plan";
import { ShardPump } from "../../src/runs/pump";
import { summaryOf } from "../../src/runs/summary";
import { type OrderApiTarget, type PostedOrder, type PostOptions, unreachable } from "../../src/synth/order-api-target";
import { failure, parsed } from "../helpers/config";
import { plan, rig, runRecord, spec, TEST_CAPS } from "../helpers/run-fakes";
import { HEALTHY } from "../helpers/synth-fakes";
import { VirtualClock } from "../helpers/virtual-clock";

// Cloudflare holds an invocation to 6 requests waiting for headers and a
// budget of subrequests; wrangler dev enforces neither, so the generator's
// design is held to them here (src/core/platform-limits.ts): a design that
// breaks them fails in these tests, as it would deployed.

/** An order API on the virtual clock, reached through one invocation's limits; it counts what it sees at once. */
class LimitedApi implements OrderApiTarget {
  inFlight = 0;
  maxInFlight = 0;
  private readonly send: ReturnType<InvocationLimiter["wrap"]>;

  constructor(clock: VirtualClock, limiter: InvocationLimiter, serviceMs: number, seen = { now: 0, most: 0 }) {
    this.send = limiter.wrap(async () => {
      this.inFlight++;
      seen.now++;
      this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
      seen.most = Math.max(seen.most, seen.now);
      await clock.sleep(serviceMs);
      this.inFlight--;
      seen.now--;
      return new Response(null, { status: 201 });
    });
  }

  async health(): Promise<Result<Health>> {
    return ok(HEALTHY);
  }

  async postOrder(_order: OrderRequest, options: PostOptions = {}): Promise<Result<PostedOrder>> {
    try {
      const answer = await this.send("https://order-api.binding/api/orders", {}, options.onSent);
      return ok({ status: answer.status, body: null });
    } catch (error) {
      return unreachable(error instanceof Error ? error.message : String(error));
    }
  }
}

function deferred(): { promise: Promise<Response>; resolve: (r: Response) => void } {
  let resolve: (r: Response) => void = () => undefined;
  const promise = new Promise<Response>((done) => (resolve = done));
  return { promise, resolve };
}

describe("one invocation's limits, simulated", () => {
  it("a 7th request waits until one of the 6 has its response headers, then leaves", async () => {
    const limiter = new InvocationLimiter({ connections: CONNECTIONS_PER_INVOCATION, subrequests: 100 });
    const answers = Array.from({ length: 7 }, () => deferred());
    const started: number[] = [];
    let calls = 0;
    const fetch = limiter.wrap(() => (answers[calls++] as ReturnType<typeof deferred>).promise);
    const requests = answers.map((_, i) => fetch("https://x/", {}, () => started.push(i)));
    await Promise.resolve();
    await Promise.resolve();
    expect(started).toEqual([0, 1, 2, 3, 4, 5]);
    expect(limiter.queued).toBe(1);
    answers[2]?.resolve(new Response(null, { status: 201 }));
    await requests[2];
    await Promise.resolve();
    expect(started).toEqual([0, 1, 2, 3, 4, 5, 6]);
    for (const answer of answers) answer.resolve(new Response(null, { status: 201 }));
    await Promise.all(requests);
  });

  it("a request past the invocation's subrequest budget fails with workerd's own error", async () => {
    const limiter = new InvocationLimiter({ connections: CONNECTIONS_PER_INVOCATION, subrequests: 3 });
    const fetch = limiter.wrap(async () => new Response(null, { status: 201 }));
    for (let i = 0; i < 3; i++) await fetch("https://x/", {});
    expect(limiter.remaining).toBe(0);
    await expect(fetch("https://x/", {})).rejects.toThrow(SUBREQUEST_LIMIT_MESSAGE);
  });

  it("is on by default, at the platform's figures, and PLATFORM_LIMITS=off turns it off to measure the machine", () => {
    expect(parsed({}).platformLimits).toEqual({
      connections: CONNECTIONS_PER_INVOCATION,
      subrequests: PAID_SUBREQUESTS_PER_INVOCATION,
    });
    expect(parsed({ SUBREQUEST_LIMIT: "50" }).platformLimits?.subrequests).toBe(50);
    expect(parsed({ PLATFORM_LIMITS: "off" }).platformLimits).toBeNull();
    expect(parsed({ PLATFORM_LIMITS: "off" }).runs.connectionsPerShard).toBeNull();
    expect(failure({ SUBREQUEST_LIMIT: "0" }).message).toContain("SUBREQUEST_LIMIT");
  });
});

describe("a generator design against those limits", () => {
  it("one shard holding 64 requests in flight is held to 6 deployed: the run is inconclusive, naming the fan-out", async () => {
    const clock = new VirtualClock();
    const limiter = new InvocationLimiter({ connections: CONNECTIONS_PER_INVOCATION, subrequests: 100_000 });
    // 100 ms per answer at 200 a second needs 20 in flight; one invocation may have 6 waiting for headers.
    const api = new LimitedApi(clock, limiter, 100);
    const runPlan = plan({ rate_per_second: 200, duration_seconds: 5 }, { maxInFlight: 64 });
    expect(runPlan.shards).toBe(1);
    const shard = spec(runPlan, clock);
    const done = await clock.run(rig(shard, api, clock).pump.run(ShardPump.initialState(shard)));
    expect(api.maxInFlight).toBe(CONNECTIONS_PER_INVOCATION);
    expect(done.figures.dropped).toBeGreaterThan(0);
    const summary = summaryOf(
      { ...runRecord(runPlan), status: "completed", figures: done.figures },
      "http://localhost/runs/R",
      clock.now(),
    );
    // The queue inside the runtime is lateness, not the target's service time: the target answered in 100 ms.
    expect(summary.service.p99_ms).toBeLessThan(110);
    expect(summary.verdict.result).toBe("inconclusive");
    expect(summary.verdict.inconclusive_reason).toContain("fan-out");
    expect(summary.limits.some((l) => l.startsWith("the target was the limit"))).toBe(false);
  });

  it("sized by the plan (rate x service time over 6 per shard), the same load leaves clean", async () => {
    const clock = new VirtualClock();
    const runPlan = plan(
      { rate_per_second: 200, duration_seconds: 5 },
      { connectionsPerShard: CONNECTIONS_PER_INVOCATION, expectedServiceMs: 100 },
    );
    expect(runPlan).toMatchObject({ shards: 4, max_in_flight: 6, expected_service_ms: 100 });
    const seen = { now: 0, most: 0 };
    const runs = Array.from({ length: runPlan.shards }, (_, index) => {
      const limiter = new InvocationLimiter({ connections: CONNECTIONS_PER_INVOCATION, subrequests: 100_000 });
      const shard = spec(runPlan, clock, index, runPlan.shards);
      return rig(shard, new LimitedApi(clock, limiter, 100, seen), clock).pump.run(ShardPump.initialState(shard));
    });
    const done = await clock.run(Promise.all(runs));
    const figures = mergeFigures(done.map((state) => state.figures));
    expect(figures).toMatchObject({ launched: 1000, answered: 1000, dropped: 0, errors: 0 });
    expect(figures.max_in_flight).toBeLessThanOrEqual(CONNECTIONS_PER_INVOCATION);
    expect(seen.most).toBeGreaterThan(CONNECTIONS_PER_INVOCATION);
  });

  it("a plan whose fan-out MAX_RUN_SHARDS cannot give is refused with what to change", () => {
    const refused = planRun({ mode: "seeded", rate_per_second: 1000, duration_seconds: 10 }, 1, {
      ...TEST_CAPS,
      connectionsPerShard: CONNECTIONS_PER_INVOCATION,
      expectedServiceMs: 100,
      maxShards: 8,
    });
    expect(refused.ok).toBe(false);
    if (refused.ok) return;
    expect(refused.error.message).toMatch(
      /^that run needs 17 generator shards, over the server's MAX_RUN_SHARDS of 8: .* keeps about 100 requests in flight, and one shard may keep 6 .*raise MAX_RUN_SHARDS/,
    );
  });

  it("an invocation that sends past its subrequest budget fails its orders, as deployed", async () => {
    const clock = new VirtualClock();
    const limiter = new InvocationLimiter({ connections: CONNECTIONS_PER_INVOCATION, subrequests: 50 });
    const api = new LimitedApi(clock, limiter, 5);
    const shard = spec(plan({ rate_per_second: 20, duration_seconds: 5 }), clock);
    const done = await clock.run(rig(shard, api, clock).pump.run(ShardPump.initialState(shard)));
    expect(done.figures.answered).toBe(50);
    expect(done.figures.errors).toBeGreaterThan(0);
  });

  it("a shard told its budget hands over before it runs out, and the next invocations finish the run clean", async () => {
    const clock = new VirtualClock();
    const shard = spec(plan({ rate_per_second: 20, duration_seconds: 5 }), clock);
    let state = ShardPump.initialState(shard);
    let invocations = 0;
    while (state.status === "running") {
      invocations++;
      const limiter = new InvocationLimiter({ connections: CONNECTIONS_PER_INVOCATION, subrequests: 50 });
      const api = new LimitedApi(clock, limiter, 5);
      const { pump, checkpoints } = rig(shard, api, clock, 10, () => limiter.remaining);
      state = await clock.run(pump.run(state));
      expect(checkpoints.length).toBeGreaterThan(0);
    }
    expect(state.status).toBe("completed");
    expect(invocations).toBe(3);
    expect(state.figures).toMatchObject({ launched: 100, answered: 100, errors: 0, dropped: 0 });
  });
});
