// The smoke run's traffic runs: a short run read back through its tool and
// resources, and the load engine's honesty against a target that stalls.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { type DevServer, startDevServer } from "./dev-server.ts";
import { callTool, connect, type ToolOutcome } from "./mcp.ts";

type Check = (label: string, condition: boolean, detail?: string) => void;

function resourceText(read: { contents: ReadonlyArray<{ text?: unknown } | { blob: string }> }): string {
  const [content] = read.contents;
  return content && "text" in content ? String(content.text) : "";
}

/** Reads the run until it has ended (or the deadline passes). */
async function ended(client: Client, runId: string, timeoutMs: number): Promise<ToolOutcome> {
  let run = await callTool(client, "get_traffic_run", { run_id: runId, detail: "full" });
  for (const deadline = Date.now() + timeoutMs; run.structured?.status === "running" && Date.now() < deadline; ) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    run = await callTool(client, "get_traffic_run", { run_id: runId, detail: "full" });
  }
  return run;
}

/**
 * A 3-second run in the account's object: the call returns at once, the
 * object's alarms send the plan, acme's run list has it and globex's does
 * not, and the chart's link answers.
 */
export async function trafficRun(acme: Client, globex: Client, check: Check): Promise<void> {
  const seed = Math.floor(Math.random() * 1_000_000);
  const started = await callTool(acme, "start_traffic_run", { rate_per_second: 2, duration_seconds: 3, seed });
  const runId = String(started.structured?.run_id ?? "");
  const plan = started.structured?.plan as { seed?: number; total_orders?: number } | undefined;
  check(
    "start_traffic_run answers at once: running, with its run id, seed and plan",
    !started.isError && started.structured?.status === "running" && plan?.seed === seed && plan.total_orders === 6,
    started.isError ? started.text : runId,
  );
  if (started.isError) return;

  const run = await ended(acme, runId, 15_000);
  const { status, sent, accepted } = run.structured ?? {};
  check(
    "get_traffic_run: the run completed in the background and sent exactly its plan",
    status === "completed" && sent === plan?.total_orders && accepted === sent,
    `${String(status)}, sent ${String(sent)} of ${String(plan?.total_orders)}`,
  );

  const acmeRuns = resourceText(await acme.readResource({ uri: "synthetic://runs" }));
  const globexRuns = resourceText(await globex.readResource({ uri: "synthetic://runs" }));
  check(
    "acme's synthetic://runs lists the run; globex's does not",
    acmeRuns.includes(`"run_id": "${runId}"`) && !globexRuns.includes(runId),
  );
  const one = resourceText(await acme.readResource({ uri: `synthetic://runs/${runId}` }));
  const theirs = await globex.readResource({ uri: `synthetic://runs/${runId}` }).then(
    () => "read",
    (error: Error) => error.message,
  );
  check(
    `synthetic://runs/${runId} reads it for acme; globex gets "not found"`,
    one.includes('"status": "completed"') && theirs.includes("traffic run not found"),
    theirs,
  );

  const chart = await fetch(String(started.structured?.run_url), { redirect: "manual" });
  check(
    "run_url answers (the sign-in page, or a redirect to it)",
    chart.status === 200 || chart.status === 302,
    `${chart.status} ${String(started.structured?.run_url)}`,
  );
}

/** A server whose built-in intake API freezes for the first second of every five (INTAKE_FAULTS). */
export function startStallingServer(): Promise<DevServer> {
  return startDevServer({ quiet: true, vars: { INTAKE_FAULTS: "stall=1000ms/5s" } });
}

/**
 * A 10-second load test against that server: latency timed from each
 * order's scheduled send time must show the stall (a p99 of about a
 * second), and a p99 threshold below it must fail the verdict, saying what
 * was measured.
 */
export async function checkHonestLatency(server: DevServer, check: Check): Promise<void> {
  const client = await connect(server.url, "acme-dev-token");
  try {
    const started = await callTool(client, "start_traffic_run", {
      rate_per_second: 20,
      duration_seconds: 10,
      thresholds: [{ metric: "p99_ms", op: "<", value: 300 }],
    });
    if (started.isError) {
      check("a load test starts against the stalling intake API", false, started.text);
      return;
    }
    const run = await ended(client, String(started.structured?.run_id), 40_000);
    const summary = run.structured as
      | {
          status?: string;
          dropped?: number;
          latency?: { p99_ms?: number };
          service?: { p50_ms?: number };
          verdict?: { result?: string; failed?: string[] };
        }
      | undefined;
    const p99 = summary?.latency?.p99_ms ?? 0;
    check(
      "against an intake API that stalls 1 s every 5 s, the p99 latency from the scheduled send time is about a second",
      summary?.status === "completed" && p99 >= 900,
      `${String(summary?.status)}, p99 ${p99} ms, service p50 ${String(summary?.service?.p50_ms)} ms, dropped ${String(summary?.dropped)}`,
    );
    const failed = summary?.verdict?.failed ?? [];
    check(
      "and the verdict fails on p99_ms < 300, saying what was measured",
      summary?.verdict?.result === "failed" &&
        failed.some((sentence) => sentence.startsWith("p99_ms < 300 failed: measured")),
      failed.join("; "),
    );
  } finally {
    await client.close();
  }
}
