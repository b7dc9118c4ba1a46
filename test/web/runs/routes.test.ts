import { env } from "cloudflare:workers";
import { getAgentByName } from "agents";
import { beforeAll, describe, expect, it } from "vitest";
import type { RunExport } from "../../../src/runs/export";
import type { RunDetail, RunSummary } from "../../../src/runs/run-schemas";
import { CSP, expectSignInForm, get, page, postForm, sessionFor, textOf } from "../../helpers/approval-pages";
import { value } from "../../helpers/results";
import { ACME_APPROVER_TOKEN, GLOBEX_APPROVER_TOKEN } from "../../helpers/tokens";
import { waitFor } from "../../helpers/wait-for";

// The run page: a traffic run's chart behind the approval app's sign-in,
// scoped to the approver's account, refreshing itself only while it runs.

const ACME = { account: "acme", id: "ada-ops", operator: "Ada Ops (acme, local dev)" };

async function acmeAgent() {
  return getAgentByName(env.ACCOUNT_AGENT, "acme");
}

async function startRun(rate: number, seconds: number): Promise<RunSummary> {
  const stub = await acmeAgent();
  for (const run of value(await stub.recentRuns(ACME)))
    if (run.status === "running") await stub.stopTrafficRun(ACME, run.run_id);
  return value(await stub.startTrafficRun(ACME, { rate_per_second: rate, duration_seconds: seconds, mode: "seeded" }));
}

async function finished(runId: string): Promise<RunDetail> {
  const stub = await acmeAgent();
  const run = await waitFor(
    async () => value(await stub.getTrafficRun(ACME, runId)),
    (r) => r.status !== "running",
    20_000,
  );
  if (run.status === "running") throw new Error(`run ${runId} did not finish`);
  return run;
}

let cookie: string;

beforeAll(async () => {
  cookie = await sessionFor(ACME_APPROVER_TOKEN);
});

describe("signed out", () => {
  it("a run link shows the sign-in form, which comes back to the run, and nothing of the run", async () => {
    const run = await startRun(2, 1);
    const p = await page(await get(`/runs/${run.run_id}`));
    expect(p.status).toBe(200);
    expectSignInForm(p.html, `/runs/${run.run_id}`);
    expect(p.html).not.toContain("<svg");
    expect(p.html).not.toContain("Traffic run");
    await finished(run.run_id);
  });
});

describe("signed in", () => {
  it("a live run: status, tally, both charts, and a 2-second refresh", async () => {
    const run = await startRun(4, 30);
    // Until the coordinator has stored an interval with answers: the charts have points to draw.
    await waitFor(
      async () => value(await (await acmeAgent()).getTrafficRun(ACME, run.run_id)),
      (r) => r.intervals.some((i) => i.sent > 0),
    );
    const p = await page(await get(`/runs/${run.run_id}`, cookie));
    await (await acmeAgent()).stopTrafficRun(ACME, run.run_id);
    expect(p.status).toBe(200);
    expect(p.headers.get("content-security-policy")).toBe(CSP);
    expect(p.headers.get("cache-control")).toBe("no-store");
    expect(p.html).toContain('<meta http-equiv="refresh" content="2">');
    expect(p.html).toContain('<span class="badge run-running" id="status">Running</span>');
    expect(p.html).not.toContain("<script");
    const text = textOf(p.html);
    expect(text).toContain(`Traffic run ${run.run_id}`);
    expect(text).toContain("Live: this page refreshes every 2 seconds.");
    expect(text).toContain("of 120 (");
    expect(text).toContain("30 s: hold 4/s");
    expect(text).toContain(`seed ${run.plan.seed}`);
    expect(text).toContain("Verdict when it ends.");
    expect(p.html).toMatch(
      /<path class="line s-answered" data-series="answered" data-points="[1-9]\d*" d="M[\d.]+ [\d.]+/,
    );
    expect(p.html).toMatch(/<path class="line s-p99" data-series="p99" data-points="[1-9]\d*"/);
    expect(p.html).toMatch(/<path class="line s-planned" data-series="planned" data-points="[1-9]\d*"/);
  });

  it("an ended run: no refresh, the tally, and why it ended", async () => {
    const run = await startRun(5, 2);
    const done = await finished(run.run_id);
    expect(done.status).toBe("completed");
    const p = await page(await get(`/runs/${run.run_id}`, cookie));
    expect(p.html).not.toContain('http-equiv="refresh"');
    const text = textOf(p.html);
    expect(text).toContain("This run has ended; the page no longer refreshes.");
    expect(text).toContain("Answered 10 of 10 (100%)");
    expect(text).toContain("Verdict: passed, every check held: Held:");
    expect(text).toContain("Accepted 10");
    expect(text).toContain("HTTP 201: 10");
    expect(text).toContain("Rejection reasons None.");
    // One chart point per second of the run that had an interval (a 2 s run has 1-second buckets).
    expect(p.html).toContain(`data-points="${new Set(done.intervals.map((i) => Math.floor(i.at_second))).size}"`);

    const stopped = await startRun(2, 60);
    await (await acmeAgent()).stopTrafficRun(ACME, stopped.run_id);
    const q = textOf((await page(await get(`/runs/${stopped.run_id}`, cookie))).html);
    expect(q).toContain(`Stopped: stopped by ${ACME.operator}`);
  });

  it("another account's run answers exactly like an unknown one: 404, nothing of the run", async () => {
    const run = await startRun(2, 1);
    const globex = await sessionFor(GLOBEX_APPROVER_TOKEN);
    const theirs = await page(await get(`/runs/${run.run_id}`, globex));
    const unknown = await page(await get("/runs/R-unknown-00000000", globex));
    expect(theirs.status).toBe(404);
    expect(unknown.status).toBe(404);
    expect(theirs.html).toBe(unknown.html);
    expect(theirs.html).toContain("There is no traffic run with this id in your account.");
    expect(theirs.html).not.toContain(run.run_id);
    await finished(run.run_id);
  });

  it("exports the whole result: the summary with its histograms as JSON, every interval as CSV", async () => {
    const run = await startRun(5, 2);
    await finished(run.run_id);
    const json = await get(`/runs/${run.run_id}/export.json`, cookie);
    expect(json.status).toBe(200);
    expect(json.headers.get("content-disposition")).toBe(`attachment; filename="run-${run.run_id}.json"`);
    const exported = (await json.json()) as RunExport;
    expect(exported).toMatchObject({ run_id: run.run_id, status: "completed", sent: 10 });
    expect(exported.histograms.latency.count).toBe(10);
    expect(
      exported.histograms.latency.buckets.reduce((sum, b) => sum + b.count, 0) + exported.histograms.latency.zeros,
    ).toBe(10);
    expect(exported.histograms.latency.buckets.every((b) => b.lower_ms < b.upper_ms)).toBe(true);

    const csv = await get(`/runs/${run.run_id}/intervals.csv`, cookie);
    expect(csv.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    const [header, ...rows] = (await csv.text()).trim().split("\r\n");
    expect(header).toBe(
      "at_second,seconds,planned_rate,sent,accepted,rejected,errors,dropped,dropped_generator,in_flight,latency_p50_ms,latency_p95_ms,latency_p99_ms,service_p99_ms,generator_delay_ms",
    );
    expect(rows.reduce((sum, row) => sum + Number(row.split(",")[2]), 0)).toBe(10);

    const globex = await sessionFor(GLOBEX_APPROVER_TOKEN);
    expect((await get(`/runs/${run.run_id}/export.json`, globex)).status).toBe(404);
    expect((await get(`/runs/${run.run_id}/intervals.csv`, globex)).status).toBe(404);
    expect(textOf((await page(await get(`/runs/${run.run_id}/export.json`))).html)).not.toContain(run.run_id.slice(2));
  });

  it("only GET: a post is 405", async () => {
    const response = await postForm("/runs/R-unknown-00000000", {}, { cookie });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("GET");
  });
});
