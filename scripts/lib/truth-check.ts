// Traffic runs against the reference target (reference-target.ts), each
// reported figure beside the truth from the target's own log: rate, p50,
// p99, dropped, verdict. `npm run truth` prints the table; `npm run smoke`
// runs a short version and fails on a figure outside the tolerance.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { callTool } from "./mcp.ts";
import type { ReferenceTarget, Schedule } from "./reference-target.ts";

export interface TruthCase {
  readonly schedule: Schedule;
  readonly rate: number;
  readonly seconds: number;
  /** Past the target's capacity: the verdict must fail on p99 alone, a lower bound. */
  readonly overload: boolean;
}

/** The threshold every case carries: far above any healthy figure, and what overload must fail. */
export const P99_LIMIT_MS = 2500;
/**
 * Below capacity, a reported percentile may read at most this much above the
 * truth (the answer's way back through the runtime, which the target's log
 * cannot see), and at most LOW below it (never: a figure below the truth
 * hides something).
 */
export const TOLERANCE = { high: 0.25, highFloorMs: 10, low: 0.05, rate: 0.03 } as const;

interface Reported {
  status?: string;
  achieved_rate?: number;
  planned_rate?: number;
  dropped?: number;
  latency?: { p50_ms: number; p99_ms: number; lower_bounds: string[]; count: number };
  service?: { p99_ms: number };
  generator?: { limited: boolean; dropped: number; delay_p99_ms: number };
  verdict?: { result: string | null; checks: { check: string; passed: boolean; at_least: boolean }[] };
  plan?: { total_orders: number };
}

export interface TruthRow {
  readonly name: string;
  readonly reported: {
    rate: number;
    p50: number;
    p99: number;
    p50AtLeast: boolean;
    p99AtLeast: boolean;
    dropped: number;
    verdict: string;
    generatorLimited: boolean;
    generatorDropped: number;
    generatorDelayP99: number;
  };
  readonly truth: { rate: number; p50: number; p99: number; dropped: number };
  readonly problems: readonly string[];
}

const round1 = (n: number) => Math.round(n * 10) / 10;

function nearestRank(sorted: readonly number[], p: number): number {
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

/**
 * The truth from the target's log: each order's answer minus its scheduled instant; arrivals per second over their
 * window.
 */
function truthOf(target: ReferenceTarget, planned: number): TruthRow["truth"] {
  const log = target.log.filter((order) => order.answered_ms > 0 && order.scheduled_ms !== null);
  const latencies = log.map((order) => order.answered_ms - (order.scheduled_ms ?? 0)).sort((a, b) => a - b);
  const arrivals = target.log.map((order) => order.arrived_ms);
  const window = (Math.max(...arrivals) - Math.min(...arrivals)) / 1000;
  return {
    rate: window > 0 ? round1((arrivals.length - 1) / window) : 0,
    p50: nearestRank(latencies, 50),
    p99: nearestRank(latencies, 99),
    dropped: planned - new Set(target.log.map((order) => order.request_id)).size,
  };
}

function problemsOf(kase: TruthCase, reported: Reported, row: Omit<TruthRow, "problems" | "name">): string[] {
  const problems: string[] = [];
  const p99Check = reported.verdict?.checks.find((check) => check.check === `p99_ms < ${P99_LIMIT_MS}`);
  if (reported.status !== "completed") problems.push(`the run ended ${String(reported.status)}, not completed`);
  if (row.reported.dropped !== row.truth.dropped)
    problems.push(`dropped ${row.reported.dropped}, but ${row.truth.dropped} orders never reached the target`);
  if (kase.overload) {
    if (!(reported.verdict?.result === "failed" && p99Check?.passed === false && p99Check.at_least))
      problems.push(
        `under overload the verdict must fail on p99_ms < ${P99_LIMIT_MS} alone, a lower bound; it was ${row.reported.verdict} with that check ${JSON.stringify(p99Check)}`,
      );
    return problems;
  }
  // A generator that ran late (a busy machine) is no problem here as long as the figures match the truth:
  // the truth is timed from the schedule too, and the run says it was generator-limited.
  for (const [name, got, truth] of [
    ["p50", row.reported.p50, row.truth.p50],
    ["p99", row.reported.p99, row.truth.p99],
  ] as const) {
    const high = Math.max(truth * (1 + TOLERANCE.high), truth + TOLERANCE.highFloorMs);
    if (got > high || got < truth * (1 - TOLERANCE.low))
      problems.push(
        `${name} reported ${got} ms against a true ${truth} ms, outside +${TOLERANCE.high * 100} % (at least +${TOLERANCE.highFloorMs} ms) / -${TOLERANCE.low * 100} %`,
      );
  }
  // A generator that ran late stretches the arrivals past the schedule's window, so the two rates part; the run says
  // so.
  if (!row.reported.generatorLimited && Math.abs(row.reported.rate - row.truth.rate) > row.truth.rate * TOLERANCE.rate)
    problems.push(`achieved_rate ${row.reported.rate}/s against ${row.truth.rate}/s arriving at the target`);
  return problems;
}

export function caseName(kase: TruthCase): string {
  return `(${kase.schedule}) ${kase.rate}/s ${kase.seconds} s`;
}

/** Runs one case against the target (switched to its schedule) and compares. */
export async function runTruthCase(client: Client, target: ReferenceTarget, kase: TruthCase): Promise<TruthRow> {
  target.use(kase.schedule);
  const started = await callTool(client, "start_traffic_run", {
    rate_per_second: kase.rate,
    duration_seconds: kase.seconds,
    thresholds: [{ metric: "p99_ms", op: "<", value: P99_LIMIT_MS }],
  });
  if (started.isError) throw new Error(`${caseName(kase)}: start_traffic_run refused: ${started.text}`);
  const runId = String(started.structured?.run_id);
  let run = started.structured as Reported;
  for (const deadline = Date.now() + (kase.seconds + 60) * 1000; run.status === "running" && Date.now() < deadline; ) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    run = (await callTool(client, "get_traffic_run", { run_id: runId, detail: "full" })).structured as Reported;
  }
  const row = {
    reported: {
      rate: run.achieved_rate ?? 0,
      p50: run.latency?.p50_ms ?? 0,
      p99: run.latency?.p99_ms ?? 0,
      p50AtLeast: run.latency?.lower_bounds.includes("p50_ms") ?? false,
      p99AtLeast: run.latency?.lower_bounds.includes("p99_ms") ?? false,
      dropped: run.dropped ?? 0,
      verdict: String(run.verdict?.result),
      generatorLimited: run.generator?.limited ?? false,
      generatorDropped: run.generator?.dropped ?? 0,
      generatorDelayP99: run.generator?.delay_p99_ms ?? 0,
    },
    truth: truthOf(target, run.plan?.total_orders ?? 0),
  };
  return { name: caseName(kase), ...row, problems: problemsOf(kase, run, row) };
}

/** The table, one line per case: reported against truth. */
export function truthTable(rows: readonly TruthRow[]): string {
  const pad = (text: string | number, width: number) => String(text).padStart(width);
  const lines = [
    `${"case".padEnd(18)}${pad("rate/s", 16)}${pad("p50 ms", 18)}${pad("p99 ms", 20)}${pad("dropped", 14)}  verdict; generator's own drops, delay p99`,
    `${"".padEnd(18)}${pad("reported truth", 16)}${pad("reported truth", 18)}${pad("reported truth", 20)}${pad("rep. truth", 14)}`,
  ];
  for (const row of rows) {
    const { reported: r, truth: t } = row;
    lines.push(
      `${row.name.padEnd(18)}${pad(r.rate, 8)}${pad(t.rate, 8)}${pad(`${r.p50AtLeast ? "≥" : ""}${r.p50}`, 10)}${pad(t.p50, 8)}${pad(`${r.p99AtLeast ? "≥" : ""}${r.p99}`, 12)}${pad(t.p99, 8)}${pad(r.dropped, 7)}${pad(t.dropped, 7)}  ${r.verdict}${r.generatorLimited ? " (generator-limited)" : ""}; ${r.generatorDropped}, ${r.generatorDelayP99} ms`,
    );
  }
  return lines.join("\n");
}
