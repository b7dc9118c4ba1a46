// `npm run bench`: starts `wrangler dev` on a free port with its own state and
// prints the performance figures, each beside its goal:
// per-call latency as a multiple of /health, 8-client read throughput against
// one client, send_orders 100 in orders per second, the account object's
// memory across 1,000-order batches, startup CPU and bundle size.
// A benchmark, not a test: a missed goal is printed, never failed. Only an
// error (a tool that answers with an error, a failed request) exits non-zero.
//   npm run bench               the full run (a few minutes)
//   npm run bench -- --short    fewer rounds, for CI
import { availableParallelism, cpus } from "node:os";
import { closedLoop, figures, interleaved, median, ms, type Figures } from "./lib/bench-stats.ts";
import { startDevServer } from "./lib/dev-server.ts";
import { rawRpc } from "./lib/mcp.ts";
import { connectInspector, heapAfterCollection } from "./lib/inspector.ts";
import { workerdRssBytes } from "./lib/process-memory.ts";
import { BUNDLE_GOAL_GZIP_BYTES, buildBundle, kib, STARTUP_GOAL_MS, startupCpuMs } from "./lib/worker-figures.ts";

const short = process.argv.includes("--short");
const plan = short
  ? { rounds: 30, warmup: 10, loadSeconds: 2, loadRepeats: 1, batches: 3, memoryBatches: 2 }
  : { rounds: 150, warmup: 30, loadSeconds: 5, loadRepeats: 3, batches: 12, memoryBatches: 5 };

const READ_CALLS: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
  ["get_order_status", { order_id: "ORD-1001" }],
  ["list_order_exceptions", {}],
  ["get_order_details", { order_id: "ORD-1003" }],
  ["preview_order", { seed: 42 }],
];

const server = await startDevServer({ vars: { MAX_BATCH: "1000" } });
let exitCode = 0;
const rpc = (method: string, params?: Record<string, unknown>) => rawRpc(server.url, "acme-dev-token", method, params);

const callTool = (name: string, args: Record<string, unknown>) => rpc("tools/call", { name, arguments: args });
const randomSeed = () => Math.floor(Math.random() * 4_000_000_000);

async function sendBatch(count: number): Promise<{ accepted: number; seconds: number }> {
  const started = performance.now();
  const result = await callTool("send_orders", { count, seed: randomSeed() });
  const seconds = (performance.now() - started) / 1000;
  const tally = result.structuredContent as { accepted?: number; requested?: number };
  if (tally.accepted !== count) throw new Error(`send_orders ${count}: only ${tally.accepted} of ${tally.requested} accepted`);
  return { accepted: count, seconds };
}

const line = (cells: readonly string[], widths: readonly number[]) => cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join("");
const verdict = (met: boolean) => (met ? "met" : "NOT met");

try {
  console.log(`machine: ${availableParallelism()} cores (${cpus()[0]?.model ?? "unknown CPU"}), node ${process.version}, ${short ? "short" : "full"} run`);

  process.stderr.write("per-call latency, interleaved rounds\n");
  const perCall = await interleaved(
    "per call",
    {
      "GET /health": async () => {
        const response = await fetch(`${server.url}/health`);
        if (!response.ok) throw new Error(`/health: HTTP ${response.status}`);
        await response.arrayBuffer();
      },
      ping: () => rpc("ping").then(() => undefined),
      "tools/list": () => rpc("tools/list").then(() => undefined),
      ...Object.fromEntries(READ_CALLS.map(([name, args]) => [name, () => callTool(name, args).then(() => undefined)])),
      check_target: () => callTool("check_target", {}).then(() => undefined),
      "send_orders count 1": () => sendBatch(1).then(() => undefined),
    },
    plan.rounds,
    plan.warmup,
  );
  const health = perCall[0] as Figures;
  const goals: Record<string, number> = { ping: 1.25, "tools/list": 1.3, "send_orders count 1": 1.8 };
  for (const name of [...READ_CALLS.map(([tool]) => tool), "check_target"]) goals[name] = 1.6;
  const widths = [22, 8, 10, 10, 10, 16];
  console.log(`\nper call, c=1, ${plan.rounds} interleaved rounds after ${plan.warmup} warm-up rounds (raw JSON-RPC, protocol 2025-11-25)`);
  console.log(line(["request", "samples", "p50", "p90", "x health", "goal"], widths));
  for (const row of perCall) {
    const ratio = row.p50 / health.p50;
    const goal = goals[row.name];
    const goalText = goal === undefined ? "" : `<= ${goal}x ${verdict(ratio <= goal)}`;
    console.log(line([row.name, String(row.samples), ms(row.p50), ms(row.p90), `${ratio.toFixed(2)}x`, goalText], widths));
  }

  process.stderr.write("read throughput, 1 client against 8\n");
  const readMix = (client: number, call: number) => {
    const [name, args] = READ_CALLS[(client + call) % READ_CALLS.length] ?? READ_CALLS[0]!;
    return callTool(name, args).then(() => undefined);
  };
  const single: number[] = [];
  const eight: number[] = [];
  let loadErrors = 0;
  for (let repeat = 0; repeat < plan.loadRepeats; repeat++) {
    const one = await closedLoop(1, plan.loadSeconds, readMix);
    const many = await closedLoop(8, plan.loadSeconds, readMix);
    single.push(one.perSecond);
    eight.push(many.perSecond);
    loadErrors += one.errors + many.errors;
  }
  const scaling = median(eight) / median(single);
  console.log(`\nread tools mixed, ${plan.loadSeconds} s per side, ${plan.loadRepeats} alternating repeat(s), median`);
  console.log(`  1 client   ${median(single).toFixed(0).padStart(6)} calls/s`);
  console.log(`  8 clients  ${median(eight).toFixed(0).padStart(6)} calls/s   ${scaling.toFixed(2)}x one client   goal >= 3x ${verdict(scaling >= 3)}`);
  console.log(`  errors     ${String(loadErrors).padStart(6)}            goal 0 ${verdict(loadErrors === 0)}`);
  if (loadErrors > 0) exitCode = 1;

  process.stderr.write("send_orders count 100\n");
  await sendBatch(100);
  const rates: number[] = [];
  for (let batch = 0; batch < plan.batches; batch++) {
    const { accepted, seconds } = await sendBatch(100);
    rates.push(accepted / seconds);
  }
  const rate = figures("orders/s", rates);
  console.log(`\nsend_orders count 100, ${plan.batches} batches, every order one request to the intake API`);
  console.log(`  median ${rate.p50.toFixed(0)} orders/s, slowest batch ${Math.min(...rates).toFixed(0)} orders/s   goal >= 1000 ${verdict(rate.p50 >= 1000)}`);

  process.stderr.write("memory across 1,000-order batches\n");
  // The account object and the Worker share one isolate under wrangler dev; its
  // heap after a full collection is what they keep. The process's resident
  // memory also holds SQLite's page cache, which grows with the stored orders.
  const inspector = await connectInspector(server.inspectorPort);
  const heap: number[] = [await heapAfterCollection(inspector)];
  const rss: number[] = [await workerdRssBytes(server.pid)];
  for (let batch = 0; batch < plan.memoryBatches; batch++) {
    await sendBatch(1000);
    heap.push(await heapAfterCollection(inspector));
    rss.push(await workerdRssBytes(server.pid));
  }
  inspector.close();
  const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
  // The first batch loads code and warms caches; growth is judged after it.
  const heapGrowth = (heap.at(-1) ?? 0) - (heap[1] ?? 0);
  const heapFlat = heapGrowth <= 1024 * 1024;
  console.log(`\nWorker isolate heap after a full collection (the account object lives in it), before and after each 1,000-order batch`);
  console.log(`  ${heap.map(mib).join(" -> ")}`);
  console.log(`  growth after the first batch: ${mib(heapGrowth)} over ${plan.memoryBatches - 1} more batches   goal: flat (within 1 MiB) ${verdict(heapFlat)}`);
  console.log(`  workerd resident memory, same points (includes SQLite's page cache): ${rss.map(mib).join(" -> ")}`);

  process.stderr.write("bundle and startup\n");
  const gzip = buildBundle().reduce((sum, module) => sum + module.gzipBytes, 0);
  const startup = startupCpuMs();
  console.log(`\nbundle ${kib(gzip)} gzip   goal <= ${kib(BUNDLE_GOAL_GZIP_BYTES)} ${verdict(gzip <= BUNDLE_GOAL_GZIP_BYTES)}`);
  console.log(`startup CPU ${startup.toFixed(1)} ms active (wrangler check startup)   goal <= ${STARTUP_GOAL_MS} ms ${verdict(startup <= STARTUP_GOAL_MS)}`);
} catch (error) {
  exitCode = 1;
  console.error(`bench failed: ${error instanceof Error ? error.message : String(error)}`);
} finally {
  await server.stop();
}
process.exit(exitCode);
