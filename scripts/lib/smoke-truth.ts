// The smoke run's truth check: a short version of `npm run truth`. A fourth
// `wrangler dev`, aimed by ORDER_API_URL at the reference order API, runs
// (a) 50/s, below capacity, and (c) 200/s, over it, 8 s each; a figure
// outside the tolerance (truth-check.ts) fails the smoke run.
import { loadavg } from "node:os";
import { type DevServer, startDevServer } from "./dev-server.ts";
import { connect } from "./mcp.ts";
import { type ReferenceTarget, startReferenceTarget } from "./reference-target.ts";
import { P99_LIMIT_MS, runTruthCase, TOLERANCE, type TruthCase, truthTable } from "./truth-check.ts";

const SMOKE_CASES: readonly TruthCase[] = [
  { schedule: "a", rate: 50, seconds: 8, overload: false },
  { schedule: "c", rate: 200, seconds: 8, overload: true },
];

export interface TruthStack {
  readonly target: ReferenceTarget;
  readonly worker: DevServer;
  stop(): Promise<void>;
}

export async function startTruthStack(): Promise<TruthStack> {
  const target = await startReferenceTarget();
  try {
    const worker = await startDevServer({ quiet: true, vars: { ORDER_API_URL: target.url, MAX_RUN_RATE: "500" } });
    return { target, worker, stop: async () => void (await Promise.all([worker.stop(), target.close()])) };
  } catch (error) {
    await target.close();
    throw error;
  }
}

type Check = (label: string, condition: boolean, detail?: string) => void;

export async function checkTruth({ target, worker }: TruthStack, check: Check): Promise<void> {
  const client = await connect(worker.url, "acme-dev-token");
  try {
    for (const kase of SMOKE_CASES) {
      const row = await runTruthCase(client, target, kase);
      const label = kase.overload
        ? `${row.name} against a target of 80/s: dropped exact, and the verdict fails on p99_ms < ${P99_LIMIT_MS} alone, a lower bound`
        : `${row.name} against the reference target: rate, p50 and p99 within +${TOLERANCE.high * 100} %/-${TOLERANCE.low * 100} % of the truth from its log, dropped exact`;
      check(label, row.problems.length === 0, `${row.problems.join("; ")} (load average ${loadavg()[0]?.toFixed(2)})`);
      console.log(truthTable([row]).replace(/^/gm, "     "));
    }
  } finally {
    await client.close();
  }
}
