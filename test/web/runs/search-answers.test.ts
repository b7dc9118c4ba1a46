import { describe, expect, it } from "vitest";
import { searchAnswer, searchReading } from "../../../src/runs/capacity-answer";
import type {
  CapacitySearch,
  SearchRecord,
  SearchStatus,
  StepPhase,
  StepResult,
} from "../../../src/runs/capacity-schemas";
import { searchChart } from "../../../src/web/runs/search-chart";
import { searchPage } from "../../../src/web/runs/search-page";
import { textOf } from "../../helpers/approval-pages";

// Everything a capacity search's answer says, for each way a search ends:
// the tool's sentence and advice, the page's headline and tiles, and the
// chart's legend and knee band are read off one record, so they agree.

const OBJECTIVE = [{ metric: "p99_ms" as const, op: "<" as const, value: 300, abort_on_fail: false, grace_seconds: 0 }];

function result(verdict: StepResult["verdict"], p99: number): StepResult {
  return {
    status: "completed",
    verdict,
    achieved_rate: 0,
    p50_ms: 20,
    p99_ms: p99,
    lower_bounds: [],
    error_rate: 0,
    dropped_rate: 0,
    failed: verdict === "failed" ? [`p99_ms < 300 failed: measured ${p99} ms`] : [],
    broke: verdict === "failed" ? [{ check: "p99_ms < 300", measured: p99, at_least: false }] : [],
    inconclusive_reason:
      verdict === "inconclusive"
        ? "the generator, not the target, was the limit: it handed orders to fetch late"
        : null,
    problem: null,
  };
}

type Step = [StepPhase, number, StepResult["verdict"] | "running", number?];

function record(status: SearchStatus, steps: Step[], problem: string | null = null): SearchRecord {
  return {
    search_id: `S-${status}`,
    status,
    operator: "Ada Ops",
    started_at: "2026-12-07T10:00:00.000Z",
    finished_at: status === "running" ? null : "2026-12-07T10:02:00.000Z",
    plan: {
      objective: OBJECTIVE,
      lowest_rate: 20,
      highest_rate: 80,
      tolerance: 0.1,
      step_seconds: 5,
      confirm_seconds: 15,
      warmup_seconds: 0,
      pause_seconds: 3,
      mode: "seeded",
      seed: 7,
      max_steps: 24,
    },
    steps: steps.map(([phase, rate, verdict, p99]) => ({
      phase,
      rate_per_second: rate,
      duration_seconds: 5,
      run_id: `R-${rate}`,
      result: verdict === "running" ? null : result(verdict, p99 ?? (verdict === "failed" ? 900 : 100)),
    })),
    pending: null,
    problem,
  };
}

const answer = (r: SearchRecord): CapacitySearch =>
  searchAnswer(r, () => result(null, 100), {
    search: "http://localhost/s",
    run: (id) => `http://localhost/runs/${id}`,
  });

const CASES: Record<string, CapacitySearch> = {
  found: answer(
    record("completed", [
      ["grow", 20, "passed"],
      ["grow", 40, "passed"],
      ["grow", 80, "failed", 750],
      ["narrow", 60, "passed"],
      ["narrow", 70, "failed"],
      ["confirm", 60, "passed"],
    ]),
  ),
  above_cap: answer(
    record("completed", [
      ["grow", 20, "passed"],
      ["grow", 40, "passed"],
      ["grow", 80, "passed"],
      ["confirm", 80, "passed"],
    ]),
  ),
  below_lowest: answer(record("completed", [["grow", 20, "failed", 1200]])),
  // What the issue saw: 40 and 70 met the objective, 80 could not be judged.
  inconclusive: answer(
    record(
      "inconclusive",
      [
        ["grow", 20, "passed"],
        ["grow", 40, "passed"],
        ["grow", 70, "passed"],
        ["grow", 80, "inconclusive"],
      ],
      "at 80 orders/s the generator, not the target, was the limit: it handed orders to fetch late",
    ),
  ),
  stopped: answer(
    record(
      "stopped",
      [
        ["grow", 20, "passed"],
        ["grow", 40, "running"],
      ],
      "stopped by Ada Ops",
    ),
  ),
};

function pageText(search: CapacitySearch): string {
  return textOf(
    String(
      searchPage({
        search,
        now: new Date("2026-12-07T10:05:00Z"),
        approver: "Ada",
        csrfToken: "t",
        person: { account: "acme", id: "ada", approver: "Ada" },
      }),
    ),
  );
}

describe("a capacity search's answer agrees with itself", () => {
  for (const [name, search] of Object.entries(CASES)) {
    it(`${name}: sentence, advice, tiles, legend and band say the same`, () => {
      const reading = searchReading(search);
      const chart = searchChart(search);
      const text = pageText(search);
      const tried = Math.max(...search.steps.map((s) => s.rate_per_second));
      // The tool's sentence is the page's headline, and appears once: no paragraph repeats it.
      expect(search.answer).toBe(reading.sentence);
      expect(text.split(search.answer).length - 1).toBe(1);
      if (search.advice) expect(text).toContain(search.advice);
      // The problem of an inconclusive search is the step's own reason: the sentence and the advice already say it.
      if (search.status === "inconclusive") expect(text).not.toContain(search.problem ?? "");
      // "Holds" in the sentence exactly when the tile says Holds, at the same rate.
      const holds = /holds (\d+) orders\/s/.exec(search.answer)?.[1];
      expect(reading.tiles.holdsLabel === "Holds" && reading.tiles.holds !== "none").toBe(holds !== undefined);
      if (holds) expect(reading.tiles.holds).toBe(`${holds}/s`);
      expect(text).toContain(`${reading.tiles.holdsLabel} ${reading.tiles.holds}`);
      // A legend never calls a rate the highest tried when a higher one was.
      expect(chart.kneeWords).not.toMatch(/highest rate tried/);
      if (/above (\d+)\/s/.test(chart.kneeWords)) expect(search.highest_passing_rate).toBe(tried);
      // A band that runs off the right edge starts at the highest rate tried; one that ends, ends at a failing rate.
      if (reading.knee?.to === null) expect(reading.knee.from).toBe(tried);
      if (reading.knee?.to) expect(reading.knee.to).toBe(search.lowest_failing_rate);
      expect(chart.knee === null).toBe(reading.knee === null);
      expect(text).toContain(`knee ${chart.kneeWords}`);
      // "Nothing yet" is for a search still running.
      expect(reading.tiles.brokeFirst).not.toBe("nothing yet");
    });
  }

  it("found: holds the best confirmed rate, fails at the lowest fail, the band between, broke first the p99", () => {
    const reading = searchReading(CASES.found as CapacitySearch);
    expect(CASES.found?.answer).toBe(
      "The order API holds 60 orders/s with p99 under 300 ms; at 70 orders/s p99 reached 900 ms.",
    );
    expect(reading).toMatchObject({
      advice: null,
      tiles: { holdsLabel: "Holds", holds: "60/s", fails: "70/s", brokeFirst: "p99_ms < 300" },
      knee: { from: 60, to: 70 },
      kneeWords: "holds 60/s, fails at 70/s",
    });
  });

  it("above the cap: the knee is above highest_rate, and the advice is the call that would find it", () => {
    const reading = searchReading(CASES.above_cap as CapacitySearch);
    expect(CASES.above_cap?.answer).toMatch(/^The order API holds 80 orders\/s .*highest_rate 80.*not found\.$/);
    expect(CASES.above_cap?.advice).toContain("lowest_rate 80 and highest_rate 160");
    expect(CASES.above_cap?.advice).toContain("npm run dev -- --var MAX_RUN_RATE:160");
    expect(reading).toMatchObject({
      knee: { from: 80, to: null },
      kneeWords: "above 80/s, the highest rate asked for",
    });
    expect(reading.tiles.brokeFirst).toBe("nothing up to 80/s");
  });

  it("below the lowest rate: holds none, the band below it, and a lower lowest_rate with a step long enough", () => {
    const reading = searchReading(CASES.below_lowest as CapacitySearch);
    expect(CASES.below_lowest?.answer).toBe(
      "The order API does not hold even 20 orders/s, the lowest rate asked for, with p99 under 300 ms: at 20 orders/s p99 reached 1.2 s.",
    );
    expect(CASES.below_lowest?.advice).toBe(
      "To find the knee, ask start_capacity_search again with lowest_rate 5 and highest_rate 20, and step_seconds of at least 20 (a step must send 100 orders).",
    );
    expect(reading).toMatchObject({ tiles: { holds: "none", fails: "20/s" }, knee: { from: 0, to: 20 } });
  });

  it("inconclusive: says no knee was found and never that the target holds a rate; names RUN_SHARD_RATE with a value and the call", () => {
    const search = CASES.inconclusive as CapacitySearch;
    const reading = searchReading(search);
    expect(search.answer).toBe(
      "Inconclusive: at 80 orders/s the generator, not the order API, was the limit, so the search found no knee; the highest rate it could judge, 70 orders/s, met p99 under 300 ms.",
    );
    expect(search.answer).not.toMatch(/holds/);
    expect(search.advice).toContain("`npm run dev -- --var RUN_SHARD_RATE:40`");
    expect(search.advice).toContain("highest_rate 70");
    expect(reading).toMatchObject({
      tiles: { holdsLabel: "Met", holds: "70/s", fails: "not judged", brokeFirst: "not judged at 80/s" },
      knee: null,
      kneeWords: "not found: 80/s could not be judged",
    });
  });

  it("stopped: no knee, what was met, who stopped it", () => {
    const search = CASES.stopped as CapacitySearch;
    expect(search.answer).toBe("Stopped before the end, so no knee was found: 20 orders/s met p99 under 300 ms.");
    expect(searchReading(search).tiles).toMatchObject({
      holdsLabel: "Met",
      holds: "20/s",
      brokeFirst: "nothing before the end",
    });
    expect(pageText(search)).toContain("Stopped by Ada Ops.");
  });
});
