import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunDetail, RunSummary } from "../../src/synth/run-schemas";
import { connectClient } from "../helpers/mcp-client";
import { ACME_TOKEN, GLOBEX_TOKEN } from "../helpers/tokens";
import { freshSeed } from "../helpers/synthetic";
import { resourceJson, structuredOf, toolErrorOf } from "../helpers/tool-results";

// The traffic-run tools as an agent uses them: start, watch, stop, list.

let acme: Client;
let globex: Client;

beforeAll(async () => {
  acme = await connectClient(ACME_TOKEN, "runs-acme");
  globex = await connectClient(GLOBEX_TOKEN, "runs-globex");
});
afterAll(async () => {
  await Promise.all([acme.close(), globex.close()]);
});

async function stopAcmeRuns(): Promise<void> {
  const { runs } = resourceJson<{ runs: RunSummary[] }>(await acme.readResource({ uri: "synthetic://runs" }));
  for (const run of runs) if (run.status === "running") await acme.callTool({ name: "stop_traffic_run", arguments: { run_id: run.run_id } });
}

describe("start, watch and stop", () => {
  it("start_traffic_run answers at once with the run id, the seed and the plan; the run goes on and can be stopped", async () => {
    await stopAcmeRuns();
    const seed = freshSeed();
    const started = structuredOf<RunSummary>(
      await acme.callTool({ name: "start_traffic_run", arguments: { rate_per_second: 4, duration_seconds: 30, ramp_seconds: 2, seed } }),
    );
    expect(started).toMatchObject({ status: "running", plan: { rate_per_second: 4, duration_seconds: 30, ramp_seconds: 2, mode: "seeded", seed, total_orders: 116 } });
    expect(started.run_url).toMatch(/\/runs\/R-/);

    let watched = structuredOf<RunDetail>(await acme.callTool({ name: "get_traffic_run", arguments: { run_id: started.run_id } }));
    for (let i = 0; i < 40 && watched.sent === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      watched = structuredOf<RunDetail>(await acme.callTool({ name: "get_traffic_run", arguments: { run_id: started.run_id } }));
    }
    expect(watched.sent).toBeGreaterThan(0);
    expect(watched.intervals.length).toBeGreaterThan(0);

    const stopped = structuredOf<RunSummary>(await acme.callTool({ name: "stop_traffic_run", arguments: { run_id: started.run_id } }));
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
    [{ rate_per_second: 2, duration_seconds: 10, ramp_seconds: -1 }, "ramp_seconds must be between 0 and duration_seconds (10), got -1"],
    [{ rate_per_second: 2, duration_seconds: 10, ramp_seconds: 11 }, "ramp_seconds must be between 0 and duration_seconds (10), got 11"],
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
    const before = resourceJson<{ runs: RunSummary[] }>(await acme.readResource({ uri: "synthetic://runs" })).runs.length;
    expect(toolErrorOf(await acme.callTool({ name: "start_traffic_run", arguments: args }))).toBe(message);
    expect(resourceJson<{ runs: RunSummary[] }>(await acme.readResource({ uri: "synthetic://runs" })).runs).toHaveLength(before);
  });

  it("synthetic://runs/{run_id} reads a run as get_traffic_run answers it; another account's id reads exactly like an unknown one", async () => {
    await stopAcmeRuns();
    const started = structuredOf<RunSummary>(await acme.callTool({ name: "start_traffic_run", arguments: { rate_per_second: 1, duration_seconds: 20 } }));
    const read = resourceJson<RunDetail>(await acme.readResource({ uri: `synthetic://runs/${started.run_id}` }));
    expect(read).toMatchObject({ run_id: started.run_id, status: "running", plan: started.plan, run_url: started.run_url });
    expect(Array.isArray(read.intervals)).toBe(true);

    const refusal = (uri: string) =>
      globex.readResource({ uri }).then(
        () => "read",
        (error: { code?: number; message?: string }) => ({ code: error.code, message: error.message?.replace(uri, "<uri>") }),
      );
    const theirs = await refusal(`synthetic://runs/${started.run_id}`);
    expect(theirs).toEqual(await refusal("synthetic://runs/R-unknown"));
    expect(theirs).toEqual({
      code: -32602,
      message: "MCP error -32602: traffic run not found; runs are only visible to the account that started them (synthetic://runs lists yours)",
    });
    await acme.callTool({ name: "stop_traffic_run", arguments: { run_id: started.run_id } });
  });

  it("another account's run answers exactly like an unknown id", async () => {
    await stopAcmeRuns();
    const started = structuredOf<RunSummary>(await acme.callTool({ name: "start_traffic_run", arguments: { rate_per_second: 1, duration_seconds: 20 } }));
    const theirs = await globex.callTool({ name: "get_traffic_run", arguments: { run_id: started.run_id } });
    const unknown = await globex.callTool({ name: "get_traffic_run", arguments: { run_id: "R-unknown" } });
    expect(toolErrorOf(theirs)).toBe(toolErrorOf(unknown));
    const stopAttempt = await globex.callTool({ name: "stop_traffic_run", arguments: { run_id: started.run_id } });
    expect(stopAttempt.isError).toBe(true);
    expect(structuredOf<RunDetail>(await acme.callTool({ name: "get_traffic_run", arguments: { run_id: started.run_id } })).status).toBe("running");
    await acme.callTool({ name: "stop_traffic_run", arguments: { run_id: started.run_id } });
  });
});
