import { env } from "cloudflare:workers";
import { getAgentByName } from "agents";
import { beforeAll, describe, expect, it } from "vitest";
import type { CapacitySearch, SearchStep } from "../../../src/runs/capacity-schemas";
import { searchChart } from "../../../src/web/runs/search-chart";
import { searchPage } from "../../../src/web/runs/search-page";
import { CSP, expectSignInForm, get, page, sessionFor, signIn, textOf } from "../../helpers/approval-pages";
import { value } from "../../helpers/results";
import { ACME_APPROVER_TOKEN, GLOBEX_APPROVER_TOKEN } from "../../helpers/tokens";

// A capacity search's page: latency against rate, the objective and the
// knee, behind the run page's sign-in, refreshing while the search runs.

const ACME = { account: "acme", id: "ada-ops", operator: "Ada Ops (acme, local dev)" };
const OBJECTIVE = [{ metric: "p99_ms" as const, op: "<" as const, value: 500, abort_on_fail: false, grace_seconds: 0 }];

function step(rate: number, p99: number, verdict: SearchStep["verdict"], atLeast = false): SearchStep {
  return {
    phase: "grow",
    rate_per_second: rate,
    duration_seconds: 10,
    run_id: `R-${rate}`,
    run_url: `http://localhost/runs/R-${rate}`,
    status: "completed",
    verdict,
    achieved_rate: rate,
    p50_ms: 50,
    p99_ms: p99,
    lower_bounds: atLeast ? ["p99_ms"] : [],
    error_rate: 0,
    dropped_rate: atLeast ? 0.4 : 0,
    failed: verdict === "failed" ? [`p99_ms < 500 failed: measured ${p99} ms`] : [],
    broke: verdict === "failed" ? [{ check: "p99_ms < 500", measured: p99, at_least: atLeast }] : [],
    inconclusive_reason: null,
  };
}

/**
 * A finished search against a target of 80/s, as the virtual-clock test finds it (test/runs/capacity-search.test.ts).
 */
const FOUND: CapacitySearch = {
  search_id: "S-found",
  status: "completed",
  operator: ACME.operator,
  started_at: "2026-12-01T10:00:00.000Z",
  finished_at: "2026-12-01T10:03:00.000Z",
  plan: {
    objective: OBJECTIVE,
    lowest_rate: 10,
    highest_rate: 200,
    tolerance: 0.1,
    step_seconds: 10,
    confirm_seconds: 30,
    warmup_seconds: 0,
    pause_seconds: 3,
    mode: "seeded",
    seed: 7,
    max_steps: 24,
  },
  answer: "The order API holds 80 orders/s with p99 under 500 ms; at 85 orders/s p99 reached 672 ms.",
  advice: null,
  outcome: "found",
  highest_passing_rate: 80,
  lowest_failing_rate: 85,
  tolerance: 0.1,
  broke_first: "p99_ms < 500",
  steps: [
    step(10, 50, "passed"),
    step(40, 50, "passed"),
    step(80, 50, "passed"),
    step(160, 1800, "failed", true),
    step(85, 672, "failed"),
  ],
  next_step: null,
  problem: null,
  search_url: "http://localhost/runs/searches/S-found",
};

describe("the chart", () => {
  it("one point per step, ordered by rate; the objective as a level line; the knee between the best pass and the lowest fail", () => {
    const chart = searchChart(FOUND);
    const p99 = chart.series.find((s) => s.key === "p99");
    expect(p99?.points.map((p) => p.rate)).toEqual([10, 40, 80, 85, 160]);
    expect(p99?.points.map((p) => p.atLeast)).toEqual([false, false, false, false, true]);
    expect(chart.xMax).toBe(200);
    expect(chart.yMax).toBe(2000);
    expect(chart.objective).toEqual([{ y: expect.any(Number), label: "p99_ms < 500" }]);
    // 500 ms of 2000 is a quarter of the way up the plot.
    expect(chart.objective[0]?.y).toBeCloseTo(180 - 6 - 0.25 * 168, 0);
    expect(chart.knee).toMatchObject({ label: "holds 80/s, fails at 85/s" });
    expect((chart.knee?.x2 ?? 0) - (chart.knee?.x1 ?? 0)).toBeCloseTo((5 / 200) * 588, 0);
  });

  it("the page draws it, marks lower bounds, and lists every step with a link to its run", () => {
    const html = String(
      searchPage({
        search: FOUND,
        now: new Date("2026-12-01T10:05:00Z"),
        approver: "Ada",
        csrfToken: "t",
        person: { account: "acme", id: "ada", approver: "Ada" },
      }),
    );
    const text = textOf(html);
    expect(text).toContain(FOUND.answer);
    expect(text).toContain("This search has ended; the page no longer refreshes.");
    expect(html).toContain('data-objective="p99_ms &lt; 500"');
    expect(html).toContain("<rect data-knee");
    expect(html).toMatch(/data-series="p99" data-points="5"/);
    expect(html).toContain('data-point="p99" data-at-least="true" style="stroke-width:9;stroke-opacity:0.45"');
    expect(html).toContain(
      '<td data-label="p99" data-at-least title="a lower bound: orders were dropped">≥ 1.8 s</td>',
    );
    expect(html).toContain('<a href="/runs/R-85"><code>R-85</code></a>');
  });
});

describe("the route", () => {
  let cookie: string;
  beforeAll(async () => {
    cookie = await sessionFor(ACME_APPROVER_TOKEN);
  });

  it("signed out, the sign-in form comes back to the search; signed in, the live page; another account's id reads as unknown", async () => {
    const stub = await getAgentByName(env.ACCOUNT_AGENT, "acme");
    for (const run of value(await stub.recentRuns(ACME)))
      if (run.status === "running") await stub.stopTrafficRun(ACME, run.run_id);
    const search = value(
      await stub.startCapacitySearch(ACME, {
        objective: OBJECTIVE,
        lowest_rate: 20,
        highest_rate: 40,
        step_seconds: 5,
        mode: "seeded",
      }),
    );
    try {
      const signedOut = await page(await get(`/runs/searches/${search.search_id}`));
      expectSignInForm(signedOut.html, `/runs/searches/${search.search_id}`);
      // Signing in there lands on the search, not on the approval queue.
      const landed = await signIn(ACME_APPROVER_TOKEN, `/runs/searches/${search.search_id}`);
      expect(landed.headers.get("location")).toBe(`/runs/searches/${search.search_id}`);
      expect(signedOut.html).not.toContain("<svg");

      const live = await page(await get(`/runs/searches/${search.search_id}`, cookie));
      expect(live.status).toBe(200);
      expect(live.headers.get("content-security-policy")).toBe(CSP);
      expect(live.html).toContain('<meta http-equiv="refresh" content="2">');
      expect(live.html).toContain('<span class="badge run-running" id="status">Running</span>');
      expect(textOf(live.html)).toContain(`Capacity search ${search.search_id}`);
      expect(live.html).toContain('data-step="1"');

      const globex = await sessionFor(GLOBEX_APPROVER_TOKEN);
      const theirs = await page(await get(`/runs/searches/${search.search_id}`, globex));
      const unknown = await page(await get("/runs/searches/S-unknown", globex));
      expect(theirs.status).toBe(404);
      expect(theirs.html).toBe(unknown.html);
      expect(theirs.html).toContain("There is no capacity search with this id in your account.");
    } finally {
      await stub.stopCapacitySearch(ACME, search.search_id);
    }
    const ended = await page(await get(`/runs/searches/${search.search_id}`, cookie));
    expect(ended.html).not.toContain('http-equiv="refresh"');
    expect(textOf(ended.html)).toContain("Stopped before the end");
  });
});
