import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { heldBySearch, SEARCH_NOT_FOUND } from "../../src/runs/capacity-coordinator";
import type { CapacitySearch } from "../../src/runs/capacity-schemas";
import type { RunSummary } from "../../src/runs/run-schemas";
import { CLIENT_GENERATIONS, type McpTestClient } from "../helpers/mcp-client";
import { ACME_TOKEN, GLOBEX_TOKEN } from "../helpers/tokens";
import { resourceJson, structuredOf, toolErrorOf } from "../helpers/tool-results";

// Over both protocol eras: the v1 client at 2025-11-25 and the v2 client at 2026-07-28.
describe.each(CLIENT_GENERATIONS)("$label", (generation) => {
  // The capacity-search tools as an agent uses them: start, read, stop; what
  // is refused, with what to change; and the account's traffic a search holds.

  let acme: McpTestClient;
  let globex: McpTestClient;

  beforeAll(async () => {
    acme = await generation.connect(ACME_TOKEN, "capacity-acme");
    globex = await generation.connect(GLOBEX_TOKEN, "capacity-globex");
  });
  afterAll(async () => {
    await Promise.all([acme.close(), globex.close()]);
  });

  const OBJECTIVE = [{ metric: "p99_ms", op: "<", value: 300 }];
  const SEARCH = { objective: OBJECTIVE, lowest_rate: 20, highest_rate: 40, step_seconds: 5 };

  async function stopAcmeRuns(): Promise<void> {
    const { runs } = resourceJson<{ runs: RunSummary[] }>(await acme.readResource({ uri: "synthetic://runs" }));
    for (const run of runs)
      if (run.status === "running")
        await acme.callTool({ name: "stop_traffic_run", arguments: { run_id: run.run_id } });
  }

  describe("refused, saying what to change", () => {
    it.each([
      [
        { highest_rate: 60 },
        "highest_rate 60 exceeds the server's MAX_RUN_RATE of 50; ask for a lower rate or raise MAX_RUN_RATE in the server environment",
      ],
      [{ lowest_rate: 0 }, "lowest_rate must be at least 1 order per second, got 0"],
      [{ tolerance: 1.5 }, "tolerance must be more than 0 and less than 1, e.g. 0.1 for 10 %, got 1.5"],
      [{ tolerance: 0 }, "tolerance must be more than 0 and less than 1, e.g. 0.1 for 10 %, got 0"],
      [{ step_seconds: 2 }, /^step_seconds 2 is too short to measure: at lowest_rate 20 a step must last at least 5 s/],
    ])("%j", async (change, message) => {
      const refused = toolErrorOf(
        await acme.callTool({ name: "start_capacity_search", arguments: { ...SEARCH, ...change } }),
      );
      if (typeof message === "string") expect(refused).toBe(message);
      else expect(refused).toMatch(message);
    });

    it("an unknown metric and an unknown key anywhere in the objective are refused, not ignored", async () => {
      const unknown = await acme.callTool({
        name: "start_capacity_search",
        arguments: { ...SEARCH, objective: [{ metric: "p98_ms", op: "<", value: 300 }] },
      });
      expect(toolErrorOf(unknown)).toContain('unknown metric "p98_ms"; use one of p50_ms');
      const extra = await acme.callTool({
        name: "start_capacity_search",
        arguments: { ...SEARCH, objective: [{ ...OBJECTIVE[0], url: "https://example.com" }] },
      });
      expect(toolErrorOf(extra)).toMatch(/url/);
    });
  });

  describe("a search holds the account's traffic", () => {
    it("answers at once with its id and page; a run or a second search is refused while it runs; stopped, the slot is free", async () => {
      await stopAcmeRuns();
      const started = structuredOf<CapacitySearch>(
        await acme.callTool({ name: "start_capacity_search", arguments: SEARCH }),
      );
      expect(started).toMatchObject({
        status: "running",
        plan: {
          lowest_rate: 20,
          highest_rate: 40,
          step_seconds: 5,
          confirm_seconds: 15,
          tolerance: 0.1,
          pause_seconds: 3,
        },
        steps: [{ phase: "grow", rate_per_second: 20, duration_seconds: 5, status: "running", verdict: null }],
      });
      expect(started.search_url).toBe(`http://localhost/runs/searches/${started.search_id}`);
      expect(started.answer).toMatch(
        /^Searching, step 1 at 20 orders\/s \(grow\): no rate has met the objective yet\.$/,
      );

      const run = await acme.callTool({
        name: "start_traffic_run",
        arguments: { rate_per_second: 2, duration_seconds: 5 },
      });
      expect(toolErrorOf(run)).toBe(heldBySearch(started.search_id));
      const second = await acme.callTool({ name: "start_capacity_search", arguments: SEARCH });
      expect(toolErrorOf(second)).toBe(heldBySearch(started.search_id));

      // Another account's search id reads exactly like one that never existed.
      const theirs = await globex.callTool({
        name: "get_capacity_search",
        arguments: { search_id: started.search_id },
      });
      expect(toolErrorOf(theirs)).toBe(SEARCH_NOT_FOUND);
      const unknown = await globex.callTool({ name: "get_capacity_search", arguments: { search_id: "S-unknown" } });
      expect(toolErrorOf(unknown)).toBe(SEARCH_NOT_FOUND);
      expect(
        toolErrorOf(
          await globex.callTool({ name: "stop_capacity_search", arguments: { search_id: started.search_id } }),
        ),
      ).toBe(SEARCH_NOT_FOUND);

      const stopped = structuredOf<CapacitySearch>(
        await acme.callTool({ name: "stop_capacity_search", arguments: { search_id: started.search_id } }),
      );
      expect(stopped).toMatchObject({ status: "stopped", problem: "stopped by Ada Ops (acme, local dev)" });
      const step = structuredOf<RunSummary>(
        await acme.callTool({ name: "get_traffic_run", arguments: { run_id: stopped.steps[0]?.run_id } }),
      );
      expect(step.status).toBe("stopped");
      // Stopping again changes nothing.
      const again = structuredOf<CapacitySearch>(
        await acme.callTool({ name: "stop_capacity_search", arguments: { search_id: started.search_id } }),
      );
      expect(again.finished_at).toBe(stopped.finished_at);

      const free = structuredOf<RunSummary>(
        await acme.callTool({ name: "start_traffic_run", arguments: { rate_per_second: 2, duration_seconds: 5 } }),
      );
      expect(free.status).toBe("running");
      const busy = await acme.callTool({ name: "start_capacity_search", arguments: SEARCH });
      expect(toolErrorOf(busy)).toBe(
        `run ${free.run_id} is still running, and a capacity search needs the account's traffic to itself (a run beside its steps would load the target too and spoil every figure); stop it with stop_traffic_run or wait for it to finish`,
      );
      await acme.callTool({ name: "stop_traffic_run", arguments: { run_id: free.run_id } });
    });
  });
});
