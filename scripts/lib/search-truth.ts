// `npm run truth -- --search`: a capacity search against the reference
// target's capacity-limited schedule (c): at most 4 orders at once, 50 ms
// each, so a capacity of 80 a second. For p99_ms < 500 the search must find
// a knee between 60 and 85 orders a second. Each step is a real traffic run
// through `wrangler dev`; the table shows every step beside the load average.
import { loadavg } from "node:os";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { callTool } from "./mcp.ts";
import type { ReferenceTarget } from "./reference-target.ts";

/** Where the knee of schedule (c) must be found, in orders per second. */
export const KNEE_RANGE = { low: 60, high: 85 } as const;
export const SEARCH_REQUEST = {
  objective: [{ metric: "p99_ms", op: "<", value: 500 }],
  lowest_rate: 10,
  highest_rate: 200,
  step_seconds: 10,
  tolerance: 0.1,
} as const;

interface Step {
  phase: string;
  rate_per_second: number;
  duration_seconds: number;
  verdict: string | null;
  status: string;
  p50_ms: number;
  p99_ms: number;
  lower_bounds: string[];
  error_rate: number;
  dropped_rate: number;
  achieved_rate: number;
  inconclusive_reason: string | null;
}

export interface SearchOutcome {
  readonly status: string;
  readonly answer: string;
  readonly pass: number | null;
  readonly fail: number | null;
  readonly problems: readonly string[];
  readonly table: string;
}

const load = () => loadavg()[0]?.toFixed(2) ?? "?";

export async function runSearchTruth(client: Client, target: ReferenceTarget): Promise<SearchOutcome> {
  target.use("c");
  const started = await callTool(client, "start_capacity_search", { ...SEARCH_REQUEST });
  if (started.isError) throw new Error(`start_capacity_search refused: ${started.text}`);
  const id = String(started.structured?.search_id);
  console.log(`search ${id} started; load average ${load()}`);
  let search = started.structured ?? {};
  const loads = new Map<number, string>();
  for (const deadline = Date.now() + 20 * 60_000; search.status === "running" && Date.now() < deadline; ) {
    await new Promise((resolve) => setTimeout(resolve, 2000));
    search = (await callTool(client, "get_capacity_search", { search_id: id, detail: "full" })).structured ?? {};
    const steps = (search.steps ?? []) as Step[];
    steps.forEach((step, i) => {
      if (step.verdict === null || loads.has(i)) return;
      loads.set(i, load());
      console.log(`  step ${i + 1} ${step.phase} ${step.rate_per_second}/s: ${step.verdict}; load average ${load()}`);
    });
  }
  const steps = (search.steps ?? []) as Step[];
  const pass = (search.highest_passing_rate ?? null) as number | null;
  const fail = (search.lowest_failing_rate ?? null) as number | null;
  const problems: string[] = [];
  if (search.status !== "completed")
    problems.push(`the search ended ${String(search.status)}: ${String(search.problem)}`);
  else if (pass === null || pass < KNEE_RANGE.low || pass > KNEE_RANGE.high)
    problems.push(`the knee was reported at ${pass}/s, outside ${KNEE_RANGE.low}..${KNEE_RANGE.high}/s`);
  return {
    status: String(search.status),
    answer: String(search.answer),
    pass,
    fail,
    problems,
    table: stepTable(steps, loads),
  };
}

function stepTable(steps: readonly Step[], loads: ReadonlyMap<number, string>): string {
  const pad = (text: string | number, width: number) => String(text).padStart(width);
  const at = (step: Step, field: string, value: number) => `${step.lower_bounds.includes(field) ? "≥" : ""}${value}`;
  const lines = [
    `${"#".padStart(2)} ${"phase".padEnd(8)}${pad("rate/s", 7)}${pad("s", 4)}${pad("achieved", 9)}${pad("p50 ms", 10)}${pad("p99 ms", 10)}${pad("errors", 8)}${pad("dropped", 9)}  verdict (load average at its end)`,
  ];
  steps.forEach((step, i) => {
    lines.push(
      `${pad(i + 1, 2)} ${step.phase.padEnd(8)}${pad(step.rate_per_second, 7)}${pad(step.duration_seconds, 4)}${pad(step.achieved_rate, 9)}${pad(at(step, "p50_ms", step.p50_ms), 10)}${pad(at(step, "p99_ms", step.p99_ms), 10)}${pad(`${Math.round(step.error_rate * 1000) / 10}%`, 8)}${pad(`${Math.round(step.dropped_rate * 1000) / 10}%`, 9)}  ${step.verdict ?? step.status} (${loads.get(i) ?? "?"})${step.inconclusive_reason ? `: ${step.inconclusive_reason}` : ""}`,
    );
  });
  return lines.join("\n");
}
