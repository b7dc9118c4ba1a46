import { describe, expect, it } from "vitest";
import { POLL_LIMIT_CHARS, RunPollSchema, runPoll, SearchPollSchema, searchPoll } from "../../src/runs/run-poll";
import { RunDetailSchema } from "../../src/runs/run-schemas";
import { QueueApi, withSearchDesk } from "../helpers/capacity-rig";
import { value } from "../helpers/results";
import { withRunCoordinator } from "../helpers/run-coordinator";
import { ClockedApi, stalling } from "../helpers/run-fakes";
import { jsonBytes } from "../helpers/tool-list-bytes";
import { VirtualClock } from "../helpers/virtual-clock";

// A poll is a summary (issue 55): get_traffic_run and get_capacity_search
// answer, by default, at most 2,500 bytes of text and 5,000 in all (the text
// is the structured content's JSON, so the two are one answer told twice),
// however long the run or the search, and say how to get the rest.

const TEXT_BUDGET = 2_500;
const ANSWER_BUDGET = 5_000;

/** A tool's answer as tool-registration.ts sends it: the JSON as text, and the same value as structured content. */
function answerBytes(value: unknown): { text: number; all: number } {
  const text = jsonBytes(value);
  return { text, all: text + text };
}

const THRESHOLDS = [
  { metric: "p50_ms" as const, op: "<" as const, value: 20 },
  { metric: "p99_ms" as const, op: "<" as const, value: 50 },
  { metric: "p999_ms" as const, op: "<" as const, value: 50 },
  { metric: "error_rate" as const, op: "<" as const, value: 0.01 },
  { metric: "dropped_rate" as const, op: "<" as const, value: 0.001 },
  { metric: "achieved_rate" as const, op: ">=" as const, value: 20 },
].map((threshold) => ({ ...threshold, abort_on_fail: false, grace_seconds: 0 }));

describe("get_traffic_run's poll", () => {
  it("a long failing run with limits and a drill answers within the budget while it runs and once it has ended; full has it all", async () => {
    const clock = new VirtualClock();
    // The target stalls 2.5 s every 10 s: requests in flight fill up, orders are dropped, percentiles become lower
    // bounds and checks fail, so the sentences a summary can carry are there.
    const api = new ClockedApi(clock, stalling(2500, 10_000, 15));
    const { running, ended } = await withRunCoordinator(
      clock,
      () => api,
      async ({ coordinator, drive }) => {
        const started = value(
          await coordinator.start("Ada", {
            mode: "seeded",
            rate_per_second: 20,
            duration_seconds: 300,
            seed: 5,
            thresholds: THRESHOLDS,
            invalid_share: { out_of_stock: 0.05, unknown_sku: 0.05, price_mismatch: 0.05 },
          }),
        );
        await drive(started.run_id, 150);
        const running = value(coordinator.get(started.run_id));
        await drive(started.run_id);
        return { running, ended: value(coordinator.get(started.run_id)) };
      },
      { shardRate: 10, maxInFlight: 5, maxLatenessMs: 200 },
    );
    expect(running.status).toBe("running");
    expect(ended.limits.length).toBeGreaterThanOrEqual(2);
    expect(ended.status).not.toBe("running");
    expect(ended.intervals.length).toBeGreaterThanOrEqual(30);
    expect(ended.verdict.checks.length).toBeGreaterThanOrEqual(THRESHOLDS.length);
    for (const run of [running, ended]) {
      const poll = runPoll(run, "summary");
      expect(RunPollSchema.safeParse(poll).success).toBe(true);
      const bytes = answerBytes(poll);
      expect(bytes.text, run.status).toBeLessThanOrEqual(TEXT_BUDGET);
      expect(bytes.all, run.status).toBeLessThanOrEqual(ANSWER_BUDGET);
      expect(poll).toMatchObject({
        run_id: run.run_id,
        status: run.status,
        verdict: { result: run.verdict.result, checks: run.verdict.checks },
        latency: run.latency,
        limits: run.limits.map((limit) => (limit.length <= POLL_LIMIT_CHARS ? limit : expect.stringMatching(/…$/))),
        dropped: run.dropped,
        achieved_rate: run.achieved_rate,
        run_url: run.run_url,
      });
      // A clipped limit is the start of the full sentence.
      for (const [i, limit] of (poll.limits ?? []).entries())
        expect(run.limits[i]?.startsWith(limit.replace(/…$/, ""))).toBe(true);
      expect(poll).not.toHaveProperty("intervals");
      expect(poll.verdict).not.toHaveProperty("failed");
      expect(poll.more).toContain('detail:"full"');
    }
    const full = runPoll(ended, "full");
    expect(RunDetailSchema.parse(full)).toEqual(ended);
    expect(RunPollSchema.safeParse(full).success).toBe(true);
    expect(jsonBytes(full)).toBeGreaterThan(TEXT_BUDGET * 2);
  });
});

const OBJECTIVE = THRESHOLDS.slice(1, 4).map((threshold) => ({ ...threshold, value: threshold.value * 10 }));

describe("get_capacity_search's poll", () => {
  it("a search of ten steps answers within the budget, with its answer sentence and the latest steps; full has every step", async () => {
    const clock = new VirtualClock();
    const found = await withSearchDesk(clock, new QueueApi(clock), async ({ searches, driveSearch }) => {
      const started = value(
        await searches.start("Ada", {
          objective: OBJECTIVE,
          mode: "seeded",
          step_seconds: 10,
          lowest_rate: 10,
          highest_rate: 1000,
        }),
      );
      await driveSearch(started.search_id);
      return value(searches.get(started.search_id));
    });
    expect(found.steps.length).toBeGreaterThanOrEqual(8);
    const poll = searchPoll(found, "summary");
    expect(SearchPollSchema.safeParse(poll).success).toBe(true);
    const bytes = answerBytes(poll);
    expect(bytes.text).toBeLessThanOrEqual(TEXT_BUDGET);
    expect(bytes.all).toBeLessThanOrEqual(ANSWER_BUDGET);
    expect(poll).toMatchObject({
      answer: found.answer,
      outcome: found.outcome,
      highest_passing_rate: found.highest_passing_rate,
      lowest_failing_rate: found.lowest_failing_rate,
      steps_run: found.steps.length,
    });
    expect(poll.latest_steps?.map((s) => s.run_id)).toEqual(found.steps.slice(-3).map((s) => s.run_id));
    expect(poll).not.toHaveProperty("steps");
    expect(poll.more).toContain('detail:"full"');
    expect(searchPoll(found, "full")).toEqual(found);
  });
});
