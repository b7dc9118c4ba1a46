import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RUN_NOT_FOUND } from "../../src/runs/coordinator";
import type { RunExport } from "../../src/runs/export";
import type { RunPoll } from "../../src/runs/run-poll";
import type { RunDetail, RunSummary } from "../../src/runs/run-schemas";
import { CLIENT_GENERATIONS, type McpTestClient } from "../helpers/mcp-client";
import { freshSeed } from "../helpers/synthetic";
import { ACME_TOKEN, GLOBEX_TOKEN } from "../helpers/tokens";
import { resourceJson, structuredOf, type ToolCallResult, toolErrorOf } from "../helpers/tool-results";
import { waitFor } from "../helpers/wait-for";

// Over both protocol eras: the v1 client at 2025-11-25 and the v2 client at 2026-07-28.
describe.each(CLIENT_GENERATIONS)("$label", (generation) => {
  // The traffic-run tools as an agent uses them: start, watch, stop, list.

  let acme: McpTestClient;
  let globex: McpTestClient;

  beforeAll(async () => {
    acme = await generation.connect(ACME_TOKEN, "runs-acme");
    globex = await generation.connect(GLOBEX_TOKEN, "runs-globex");
  });
  afterAll(async () => {
    await Promise.all([acme.close(), globex.close()]);
  });

  async function stopAcmeRuns(): Promise<void> {
    const { runs } = resourceJson<{ runs: RunSummary[] }>(await acme.readResource({ uri: "synthetic://runs" }));
    for (const run of runs)
      if (run.status === "running")
        await acme.callTool({ name: "stop_traffic_run", arguments: { run_id: run.run_id } });
  }

  describe("start, watch and stop", () => {
    it("start_traffic_run answers at once with the run id, the seed and the plan; the run goes on and can be stopped", async () => {
      await stopAcmeRuns();
      const seed = freshSeed();
      const started = structuredOf<RunSummary>(
        await acme.callTool({
          name: "start_traffic_run",
          arguments: { rate_per_second: 4, duration_seconds: 30, ramp_seconds: 2, seed },
        }),
      );
      expect(started).toMatchObject({
        status: "running",
        plan: {
          start_rate: 0,
          stages: [
            { duration_seconds: 2, rate_per_second: 4 },
            { duration_seconds: 28, rate_per_second: 4 },
          ],
          mode: "seeded",
          seed,
          total_orders: 116,
        },
      });
      expect(started.run_url).toMatch(/\/runs\/R-/);

      const watched = await waitFor(
        async () =>
          structuredOf<RunDetail>(
            await acme.callTool({ name: "get_traffic_run", arguments: { run_id: started.run_id, detail: "full" } }),
          ),
        (run) => run.sent > 0,
        10_000,
      );
      expect(watched.sent).toBeGreaterThan(0);
      expect(watched.intervals.length).toBeGreaterThan(0);
      // By default a poll is the summary, and says how to get the rest.
      const polled = structuredOf<RunPoll>(
        await acme.callTool({ name: "get_traffic_run", arguments: { run_id: started.run_id } }),
      );
      expect(polled).toMatchObject({ run_id: started.run_id, verdict: { checks: expect.any(Array) } });
      expect(polled).not.toHaveProperty("intervals");
      expect(polled.more).toContain('detail:"full"');

      const stopped = structuredOf<RunSummary>(
        await acme.callTool({ name: "stop_traffic_run", arguments: { run_id: started.run_id } }),
      );
      expect(stopped.status).toBe("stopped");
      const { runs } = resourceJson<{ runs: RunSummary[] }>(await acme.readResource({ uri: "synthetic://runs" }));
      expect(runs[0]).toMatchObject({ run_id: started.run_id, status: "stopped" });
    });

    // Below the bounds as well as above them, the refusal is the server's readable sentence,
    // not the SDK's generic validation text, and nothing starts.
    it.each([
      [{ rate_per_second: 0, duration_seconds: 10 }, "rate_per_second must be more than 0, got 0"],
      [{ rate_per_second: -2, duration_seconds: 10 }, "rate_per_second must be more than 0, got -2"],
      [{ rate_per_second: 2, duration_seconds: 0 }, "duration_seconds must be at least 1, got 0"],
      [{ rate_per_second: 2, duration_seconds: -5 }, "duration_seconds must be at least 1, got -5"],
      [
        { rate_per_second: 2, duration_seconds: 10, ramp_seconds: -1 },
        "ramp_seconds must be between 0 and duration_seconds (10), got -1",
      ],
      [
        { rate_per_second: 2, duration_seconds: 10, ramp_seconds: 11 },
        "ramp_seconds must be between 0 and duration_seconds (10), got 11",
      ],
      [
        { rate_per_second: 5000, duration_seconds: 10 },
        "rate_per_second 5000 exceeds the server's MAX_RUN_RATE of 50; ask for a lower rate or raise MAX_RUN_RATE in the server environment",
      ],
      [
        { rate_per_second: 2, duration_seconds: 901 },
        "duration_seconds 901 exceeds the server's MAX_RUN_SECONDS of 900; run for less time or raise MAX_RUN_SECONDS in the server environment",
      ],
      [
        { rate_per_second: 50, duration_seconds: 900 },
        "that run would send 45000 orders, over the server's MAX_RUN_ORDERS of 20000; lower the rate or the duration, or raise MAX_RUN_ORDERS in the server environment",
      ],
    ])("start_traffic_run %j is refused readably", async (args, message) => {
      const before = resourceJson<{ runs: RunSummary[] }>(await acme.readResource({ uri: "synthetic://runs" })).runs
        .length;
      expect(toolErrorOf(await acme.callTool({ name: "start_traffic_run", arguments: args }))).toBe(message);
      expect(
        resourceJson<{ runs: RunSummary[] }>(await acme.readResource({ uri: "synthetic://runs" })).runs,
      ).toHaveLength(before);
    });

    it("synthetic://runs/{run_id} reads a run whole, with its histograms; another account's id reads exactly like an unknown one", async () => {
      await stopAcmeRuns();
      const started = structuredOf<RunSummary>(
        await acme.callTool({ name: "start_traffic_run", arguments: { rate_per_second: 1, duration_seconds: 20 } }),
      );
      const read = resourceJson<RunExport>(await acme.readResource({ uri: `synthetic://runs/${started.run_id}` }));
      expect(read).toMatchObject({
        run_id: started.run_id,
        status: "running",
        plan: started.plan,
        run_url: started.run_url,
      });
      expect(read.histograms.latency).toMatchObject({ relative_error: 0.01 });

      const refusal = (uri: string) =>
        globex.readResource({ uri }).then(
          () => "read",
          (error: { code?: number; message?: string }) => ({
            code: error.code,
            // The v1 client prefixes "MCP error <code>: " to the server's message; the v2 client does not.
            message: error.message?.replace(/^MCP error -?\d+: /, "").replace(uri, "<uri>"),
          }),
        );
      const theirs = await refusal(`synthetic://runs/${started.run_id}`);
      expect(theirs).toEqual(await refusal("synthetic://runs/R-unknown"));
      expect(theirs).toEqual({
        code: -32602,
        message: RUN_NOT_FOUND,
      });
      await acme.callTool({ name: "stop_traffic_run", arguments: { run_id: started.run_id } });
    });

    it("another account's run answers exactly like an unknown id", async () => {
      await stopAcmeRuns();
      const started = structuredOf<RunSummary>(
        await acme.callTool({ name: "start_traffic_run", arguments: { rate_per_second: 1, duration_seconds: 20 } }),
      );
      const theirs = await globex.callTool({ name: "get_traffic_run", arguments: { run_id: started.run_id } });
      const unknown = await globex.callTool({ name: "get_traffic_run", arguments: { run_id: "R-unknown" } });
      expect(toolErrorOf(theirs)).toBe(toolErrorOf(unknown));
      const stopAttempt = (await globex.callTool({
        name: "stop_traffic_run",
        arguments: { run_id: started.run_id },
      })) as ToolCallResult;
      expect(stopAttempt.isError).toBe(true);
      expect(
        structuredOf<RunDetail>(
          await acme.callTool({ name: "get_traffic_run", arguments: { run_id: started.run_id, detail: "full" } }),
        ).status,
      ).toBe("running");
      await acme.callTool({ name: "stop_traffic_run", arguments: { run_id: started.run_id } });
    });
  });

  describe("load tests as an agent asks for them", () => {
    it("stages, thresholds and a drill in one call; the run ends with a verdict", async () => {
      await stopAcmeRuns();
      const started = structuredOf<RunSummary>(
        await acme.callTool({
          name: "start_traffic_run",
          arguments: {
            stages: [
              { duration_seconds: 1, rate_per_second: 4 },
              { duration_seconds: 1, rate_per_second: 4 },
            ],
            thresholds: [
              { metric: "p99_ms", op: "<", value: 5000 },
              { metric: "error_rate", op: "<", value: 0.01 },
            ],
            invalid_share: { out_of_stock: 0.25 },
          },
        }),
      );
      expect(started.plan).toMatchObject({
        start_rate: 0,
        total_orders: 6,
        thresholds: [{ metric: "p99_ms", abort_on_fail: false, grace_seconds: 0 }, { metric: "error_rate" }],
      });
      const done = await waitFor(
        async () =>
          structuredOf<RunDetail>(
            await acme.callTool({ name: "get_traffic_run", arguments: { run_id: started.run_id, detail: "full" } }),
          ),
        (run) => run.status !== "running",
        15_000,
      );
      expect(done.status).toBe("completed");
      expect(done.verdict.result).toBe("passed");
      expect(done.verdict.checks.map((c) => c.check)).toEqual(
        expect.arrayContaining(["p99_ms < 5000", "error_rate < 0.01"]),
      );
      expect(done.rejected).toBe(done.drill.out_of_stock?.as_expected ?? 0);
    });

    it.each([
      [
        {
          stages: [{ duration_seconds: 5, rate_per_second: 2 }],
          thresholds: [{ metric: "p98_ms", op: "<", value: 300 }],
        },
        /unknown metric "p98_ms"; use one of p50_ms, p90_ms/,
      ],
      [
        { rate_per_second: 2, duration_seconds: 5, invalid_share: { out_of_stock: 2 } },
        /^invalid_share.out_of_stock must be a share between 0 and 1, got 2$/,
      ],
      [
        {
          stages: [
            { duration_seconds: 5, rate_per_second: 2 },
            { duration_seconds: 0, rate_per_second: 2 },
          ],
        },
        /^stages\[1\].duration_seconds must be a whole number of seconds, at least 1/,
      ],
      [
        { stages: [{ duration_seconds: 5, rate_per_second: 2 }], rate_per_second: 2 },
        /^give the load either as stages or as rate_per_second/,
      ],
    ])("%j is refused with a clear sentence, and nothing starts", async (args, message) => {
      await stopAcmeRuns();
      const before = resourceJson<{ runs: RunSummary[] }>(await acme.readResource({ uri: "synthetic://runs" })).runs
        .length;
      expect(toolErrorOf(await acme.callTool({ name: "start_traffic_run", arguments: args }))).toMatch(message);
      expect(
        resourceJson<{ runs: RunSummary[] }>(await acme.readResource({ uri: "synthetic://runs" })).runs,
      ).toHaveLength(before);
    });

    it("compare_traffic_runs compares with a baseline of the same account; another account's run is not found", async () => {
      await stopAcmeRuns();
      const run = async () => {
        const started = structuredOf<RunSummary>(
          await acme.callTool({ name: "start_traffic_run", arguments: { rate_per_second: 3, duration_seconds: 1 } }),
        );
        return waitFor(
          async () =>
            structuredOf<RunDetail>(
              await acme.callTool({ name: "get_traffic_run", arguments: { run_id: started.run_id, detail: "full" } }),
            ),
          (r) => r.status !== "running",
          15_000,
        );
      };
      const baseline = await run();
      const current = await run();
      const compared = structuredOf<{ result: string; metrics: { metric: string }[] }>(
        await acme.callTool({
          name: "compare_traffic_runs",
          arguments: { run_id: current.run_id, baseline_run_id: baseline.run_id, tolerance_percent: 1000 },
        }),
      );
      expect(compared.result).toBe("no regression");
      expect(compared.metrics.map((m) => m.metric)).toContain("p99_ms");
      const theirs = await globex.callTool({
        name: "compare_traffic_runs",
        arguments: { run_id: current.run_id, baseline_run_id: baseline.run_id },
      });
      expect(toolErrorOf(theirs)).toBe(RUN_NOT_FOUND);
    });
  });
});
