import { describe, expect, it } from "vitest";
import { ok } from "../../src/core/errors";
import { value } from "../helpers/results";
import { withRunCoordinator } from "../helpers/run-coordinator";
import { ClockedApi, stalling } from "../helpers/run-fakes";
import { VirtualClock } from "../helpers/virtual-clock";

// The coordinator of a run: it starts the shards, adds their figures up once
// a second, and alone decides how the run ends, with a verdict an agent can
// report. What it names as the run's limit is in run-limits.test.ts.

describe("shards", () => {
  it("a run over several shards sends exactly the plan's orders, each once, and its histograms merge into one summary", async () => {
    const clock = new VirtualClock();
    const api = new ClockedApi(clock);
    const summary = await withRunCoordinator(
      clock,
      () => api,
      async ({ coordinator, drive }) => {
        const started = value(
          await coordinator.start("Ada", { mode: "seeded", rate_per_second: 30, duration_seconds: 5, seed: 11 }),
        );
        expect(started.plan.shards).toBe(3);
        await drive(started.run_id);
        return value(coordinator.get(started.run_id));
      },
      { shardRate: 10 },
    );
    expect(summary).toMatchObject({ status: "completed", sent: 150, accepted: 150, dropped: 0, errors: 0 });
    expect(api.posts).toHaveLength(150);
    expect(new Set(api.posts.map((p) => p.id)).size).toBe(150);
    expect(summary.latency.count).toBe(150);
    expect(summary.verdict).toMatchObject({ result: "passed", failed: [] });
    expect(summary.intervals.reduce((sum, i) => sum + i.sent, 0)).toBe(150);
  });

  it("one shard that stops answering ends the run failed, naming it, and the others are stopped", async () => {
    const clock = new VirtualClock();
    const api = new ClockedApi(clock);
    const summary = await withRunCoordinator(
      clock,
      () => api,
      async ({ coordinator, drive, silent }) => {
        const started = value(
          await coordinator.start("Ada", { mode: "seeded", rate_per_second: 20, duration_seconds: 120 }),
        );
        silent.add(1);
        await drive(started.run_id, 60);
        return value(coordinator.get(started.run_id));
      },
      { shardRate: 10 },
    );
    expect(summary.status).toBe("failed");
    expect(summary.problem).toMatch(
      /^generator shard 2 of 2 stopped answering for 30 s, so the run was ended; \d+ of 2400 orders had been answered$/,
    );
    const sentAtEnd = api.posts.length;
    expect(sentAtEnd).toBeLessThan(2400);
  });

  it("a shard whose target stays away fails the run with the shard's reason", async () => {
    const clock = new VirtualClock();
    const healthy = new ClockedApi(clock);
    const down = new ClockedApi(clock);
    down.down = true;
    const summary = await withRunCoordinator(
      clock,
      (shard) => (shard === 0 ? healthy : down),
      async ({ coordinator, drive }) => {
        const started = value(
          await coordinator.start("Ada", { mode: "seeded", rate_per_second: 20, duration_seconds: 60 }),
        );
        await drive(started.run_id);
        return value(coordinator.get(started.run_id));
      },
      { shardRate: 10 },
    );
    expect(summary.status).toBe("failed");
    expect(summary.problem).toMatch(
      /^generator shard 2 of 2: the order API stayed unreachable for \d+ s, so the run gave up/,
    );
    expect(summary.verdict.result).toBeNull();
  });
});

describe("thresholds and the verdict", () => {
  const p99Under300 = {
    metric: "p99_ms" as const,
    op: "<" as const,
    value: 300,
    abort_on_fail: false,
    grace_seconds: 0,
  };

  it("a threshold with abort_on_fail stops the run once it fails after its grace, and the verdict says what was measured", async () => {
    const clock = new VirtualClock();
    const api = new ClockedApi(clock, stalling(1000, 5000));
    const summary = await withRunCoordinator(
      clock,
      () => api,
      async ({ coordinator, drive }) => {
        const started = value(
          await coordinator.start("Ada", {
            mode: "seeded",
            rate_per_second: 20,
            duration_seconds: 60,
            thresholds: [{ ...p99Under300, abort_on_fail: true, grace_seconds: 3 }],
          }),
        );
        await drive(started.run_id);
        return value(coordinator.get(started.run_id));
      },
    );
    expect(summary.status).toBe("aborted");
    expect(summary.problem).toMatch(
      /^aborted \d+ s in: the threshold p99_ms < 300 failed \(measured \d+(\.\d+)? ms\)$/,
    );
    expect(summary.verdict.result).toBe("failed");
    expect(summary.sent).toBeLessThan(1200);
  });

  it("without abort_on_fail the run completes and the verdict fails on the threshold, with the measured value", async () => {
    const clock = new VirtualClock();
    const api = new ClockedApi(clock, stalling(1000, 5000));
    const summary = await withRunCoordinator(
      clock,
      () => api,
      async ({ coordinator, drive }) => {
        const started = value(
          await coordinator.start("Ada", {
            mode: "seeded",
            rate_per_second: 20,
            duration_seconds: 10,
            thresholds: [p99Under300, { ...p99Under300, metric: "error_rate", value: 0.01 }],
          }),
        );
        await drive(started.run_id);
        return value(coordinator.get(started.run_id));
      },
    );
    expect(summary.status).toBe("completed");
    expect(summary.verdict.result).toBe("failed");
    expect(summary.verdict.checks.find((c) => c.check === "error_rate < 0.01")).toMatchObject({
      measured: 0,
      passed: true,
    });
    expect(summary.verdict.failed[0]).toMatch(/^p99_ms < 300 failed: measured \d+(\.\d+)? ms$/);
    expect(summary.latency.p99_ms).toBeGreaterThanOrEqual(950);
  });

  it("orders dropped for lack of room fail the verdict, and the limits say the target was the limit", async () => {
    const clock = new VirtualClock();
    const api = new ClockedApi(clock, () => 3000);
    const summary = await withRunCoordinator(
      clock,
      () => api,
      async ({ coordinator, drive }) => {
        const started = value(
          await coordinator.start("Ada", { mode: "seeded", rate_per_second: 20, duration_seconds: 5 }),
        );
        await drive(started.run_id);
        return value(coordinator.get(started.run_id));
      },
      { maxInFlight: 5, maxLatenessMs: 100 },
    );
    expect(summary.dropped).toBeGreaterThan(0);
    expect(summary.verdict.result).toBe("failed");
    expect(summary.limits[0]).toMatch(
      // Changed with issue 54: the sentence names the service time the fan-out was sized for.
      /^the target was the limit: it slowed past the 100 ms per answer this run's fan-out was sized for \(RUN_EXPECTED_SERVICE_MS\) until 5 requests per shard were in flight \(MAX_IN_FLIGHT\), so \d+ orders/,
    );
  });

  it("a drill order the target accepts is a finding, and fails the verdict", async () => {
    const clock = new VirtualClock();
    const accepting = {
      health: async () => ok({ status: "ok" as const, skus: 8, customers: 5 }),
      postOrder: async () => ok({ status: 201, body: {} }),
    };
    const summary = await withRunCoordinator(
      clock,
      () => accepting,
      async ({ coordinator, drive }) => {
        const started = value(
          await coordinator.start("Ada", {
            mode: "seeded",
            rate_per_second: 20,
            duration_seconds: 5,
            invalid_share: { out_of_stock: 0.2 },
          }),
        );
        await drive(started.run_id);
        return value(coordinator.get(started.run_id));
      },
    );
    const tally = summary.drill.out_of_stock;
    expect(tally?.sent).toBeGreaterThan(5);
    expect(tally?.mismatched).toBe(tally?.sent);
    expect(summary.findings[0]).toMatch(
      /^order \d+ was broken for out_of_stock and should have been rejected for it, but the target answered 201$/,
    );
    expect(summary.verdict.result).toBe("failed");
  });

  it("the real validator rejects every drill order for its reason: the verdict passes", async () => {
    const clock = new VirtualClock();
    const api = new ClockedApi(clock);
    const summary = await withRunCoordinator(
      clock,
      () => api,
      async ({ coordinator, drive }) => {
        const started = value(
          await coordinator.start("Ada", {
            mode: "seeded",
            rate_per_second: 20,
            duration_seconds: 5,
            invalid_share: { out_of_stock: 0.2, total_mismatch: 0.1, unknown_customer: 0.1 },
          }),
        );
        await drive(started.run_id);
        return value(coordinator.get(started.run_id));
      },
    );
    expect(summary.rejected).toBe(
      (summary.drill.out_of_stock?.sent ?? 0) +
        (summary.drill.total_mismatch?.sent ?? 0) +
        (summary.drill.unknown_customer?.sent ?? 0),
    );
    expect(Object.values(summary.drill).every((t) => t.mismatched === 0 && t.as_expected === t.sent)).toBe(true);
    expect(summary.verdict.result).toBe("passed");
  });
});

describe("comparing with a baseline", () => {
  it("names the metrics that got worse beyond the tolerance", async () => {
    const clock = new VirtualClock();
    let slow = false;
    const api = new ClockedApi(clock, () => (slow ? 400 : 20));
    const comparison = await withRunCoordinator(
      clock,
      () => api,
      async ({ coordinator, drive }) => {
        const baseline = value(
          await coordinator.start("Ada", { mode: "seeded", rate_per_second: 10, duration_seconds: 5 }),
        );
        await drive(baseline.run_id);
        slow = true;
        const current = value(
          await coordinator.start("Ada", { mode: "seeded", rate_per_second: 10, duration_seconds: 5 }),
        );
        await drive(current.run_id);
        expect(coordinator.compare(current.run_id, "R-none", 10)).toMatchObject({
          ok: false,
          error: { code: "not_found" },
        });
        expect(coordinator.compare(current.run_id, current.run_id, 10)).toMatchObject({
          ok: false,
          error: { code: "bad_request" },
        });
        return value(coordinator.compare(current.run_id, baseline.run_id, 10));
      },
    );
    expect(comparison.result).toBe("regressed");
    expect(comparison.metrics.find((m) => m.metric === "p99_ms")).toMatchObject({ regression: true, better: "lower" });
    expect(comparison.metrics.find((m) => m.metric === "error_rate")).toMatchObject({
      regression: false,
      baseline: 0,
      current: 0,
    });
    expect(comparison.regressions.some((r) => r.startsWith("p99_ms went from"))).toBe(true);
    expect(comparison.notes).toEqual([]);
  });
});
