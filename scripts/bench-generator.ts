// `npm run bench:generator`: the load generator itself, at rising rates,
// against the reference order API (every order takes 20 ms, schedule a of
// scripts/lib/reference-target.ts) with the platform's limits simulated
// (PLATFORM_LIMITS on). Per rate it prints the shards, the orders sent and
// dropped, the generator's own delay and event-loop lag, workerd's CPU per
// order (from /proc), workerd's memory at its peak, the verdict, and what
// the target's own log saw arrive; then autocannon (a native closed-model
// client) against the same target, the ratio to beat. Figures, not checks:
// the machine's load average is printed beside each row.
//   npm run bench:generator
//   npm run bench:generator -- --rates 200,1000,2000 --seconds 15
import { spawn } from "node:child_process";
import { loadavg } from "node:os";
import path from "node:path";
import { startDevServer } from "./lib/dev-server.ts";
import { callTool, connect } from "./lib/mcp.ts";
import { processCpuMs, workerdProcesses, workerdRssBytes } from "./lib/process-memory.ts";
import { startReferenceTarget } from "./lib/reference-target.ts";
import { root } from "./lib/worker-figures.ts";

const option = (name: string, fallback: string): string => {
  const at = process.argv.indexOf(name);
  return at >= 0 ? (process.argv[at + 1] ?? fallback) : fallback;
};
const rates = option("--rates", "200,500,1000,2000,3200").split(",").map(Number);
const seconds = Number(option("--seconds", "15"));
const load = () => loadavg()[0]?.toFixed(2) ?? "?";
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface RunAnswer {
  run_id?: string;
  status?: string;
  sent?: number;
  dropped?: number;
  errors?: number;
  achieved_rate?: number;
  plan?: { shards?: number; max_in_flight?: number };
  generator?: { delay_p99_ms?: number; loop_lag_p99_ms?: number; limited?: boolean };
  service?: { p99_ms?: number };
  verdict?: { result?: string | null; inconclusive_reason?: string | null; failed?: string[] };
  limits?: string[];
}

async function workerdCpuMs(pid: number | undefined): Promise<number> {
  let total = 0;
  for (const process of await workerdProcesses(pid)) total += (await processCpuMs(process)) ?? 0;
  return total;
}

/** autocannon against the target's order intake for `duration` s: requests per second, and its own CPU per request. */
function autocannon(url: string, duration: number): Promise<{ perSecond: number; cpuMsPerRequest: number }> {
  const body = JSON.stringify({
    request_id: "bench-autocannon",
    customer_id: "C-1001",
    channel: "web",
    currency: "USD",
    lines: [{ sku: "SKU-1001", quantity: 1, unit_price_cents: 1200 }],
    total_cents: 1200,
  });
  const bin = path.join(root, "node_modules", ".bin", "autocannon");
  const args = ["-j", "-c", "50", "-d", String(duration), "-m", "POST", "-H", "content-type=application/json"];
  const child = spawn(bin, [...args, "-b", body, `${url}/api/orders`], { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
  let cpu = 0;
  const sampler = setInterval(async () => {
    if (child.pid !== undefined) cpu = (await processCpuMs(child.pid)) ?? cpu;
  }, 200);
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", () => {
      clearInterval(sampler);
      try {
        const result = JSON.parse(out) as { requests: { average: number; total: number } };
        resolve({ perSecond: result.requests.average, cpuMsPerRequest: cpu / Math.max(1, result.requests.total) });
      } catch (error) {
        reject(new Error(`autocannon gave no JSON: ${String(error)} ${out.slice(0, 200)}`));
      }
    });
  });
}

const target = await startReferenceTarget("a");
const server = await startDevServer({
  vars: {
    ORDER_API_URL: target.url,
    MAX_RUN_RATE: "10000",
    MAX_RUN_ORDERS: "1000000",
    MAX_RUN_SHARDS: "64",
    MAX_RUN_SECONDS: "3600",
    SYNTH_ORDERS_PER_MINUTE: "1000000",
  },
}).catch(async (error: unknown) => {
  await target.close();
  throw error;
});
const rows: string[] = [];
let bestClean = 0;
try {
  const client = await connect(server.url, "acme-dev-token");
  console.log(
    `load average before: ${loadavg()
      .map((n) => n.toFixed(2))
      .join(" ")}; ${seconds} s per rate`,
  );
  for (const rate of rates) {
    target.use("a");
    const cpuBefore = await workerdCpuMs(server.pid);
    let peakRss = await workerdRssBytes(server.pid);
    const started = (
      await callTool(client, "start_traffic_run", { rate_per_second: rate, duration_seconds: seconds, seed: rate })
    ).structured as RunAnswer | undefined;
    if (!started?.run_id) {
      rows.push(`${String(rate).padStart(6)}  refused: ${JSON.stringify(started).slice(0, 200)}`);
      continue;
    }
    let run: RunAnswer = started;
    for (const deadline = Date.now() + (seconds + 60) * 1000; Date.now() < deadline; ) {
      await sleep(1000);
      peakRss = Math.max(peakRss, await workerdRssBytes(server.pid));
      run = ((await callTool(client, "get_traffic_run", { run_id: started.run_id, detail: "full" })).structured ??
        run) as RunAnswer;
      if (run.status !== "running") break;
    }
    // The answers to the last orders, and the coordinator's last tick.
    await sleep(2000);
    run = ((await callTool(client, "get_traffic_run", { run_id: started.run_id, detail: "full" })).structured ??
      run) as RunAnswer;
    const cpu = (await workerdCpuMs(server.pid)) - cpuBefore;
    const sent = run.sent ?? 0;
    const verdict = run.verdict?.result ?? run.status ?? "?";
    if (verdict === "passed" && (run.dropped ?? 0) === 0 && rate > bestClean) bestClean = rate;
    rows.push(
      [
        String(rate).padStart(6),
        String(run.plan?.shards ?? "?").padStart(6),
        String(sent).padStart(7),
        String(run.achieved_rate ?? "?").padStart(8),
        String(run.dropped ?? "?").padStart(7),
        String(run.generator?.delay_p99_ms ?? "?").padStart(9),
        String(run.generator?.loop_lag_p99_ms ?? "?").padStart(8),
        String(run.service?.p99_ms ?? "?").padStart(9),
        (sent > 0 ? (cpu / sent).toFixed(3) : "?").padStart(8),
        `${Math.round(peakRss / 1024 / 1024)}`.padStart(6),
        String(target.log.length).padStart(7),
        `${verdict} (load ${load()})`,
      ].join(" "),
    );
    console.log(rows.at(-1));
    if (run.verdict?.inconclusive_reason) console.log(`        ${run.verdict.inconclusive_reason.slice(0, 300)}`);
    for (const failed of run.verdict?.failed ?? []) console.log(`        failed: ${failed.slice(0, 300)}`);
    for (const limit of run.limits ?? []) console.log(`        limit: ${limit.slice(0, 300)}`);
    await sleep(3000);
  }
  await client.close();
} finally {
  await server.stop();
}
const native = await autocannon(target.url, 10);
await target.close();
console.log(
  `\n  rate shards    sent achieved dropped  delay99   lag99  svc p99  cpu/ord  MB   arrived  verdict\n${rows.join("\n")}`,
);
console.log(
  `\nautocannon (50 connections, closed model) against the same target: ${Math.round(native.perSecond)} req/s, ${native.cpuMsPerRequest.toFixed(3)} ms CPU per request (load ${load()})`,
);
console.log(
  bestClean > 0
    ? `highest clean rate ${bestClean}/s = ${(bestClean / native.perSecond).toFixed(2)} of autocannon's throughput`
    : "no rate ran clean",
);
console.log(
  `load average after: ${loadavg()
    .map((n) => n.toFixed(2))
    .join(" ")}`,
);
