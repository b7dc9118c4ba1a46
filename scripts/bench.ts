// `npm run bench`: starts `wrangler dev` on a free port with its own state,
// the project and the floor Worker (bench/floor) side by side, and prints
// each of our figures beside the floor's, taken in the same run on the same
// machine: order intake and send_orders against the floor's intake and its
// object -> binding -> D1 path, MCP reads against /health at 8 concurrent,
// per-call latency as a multiple of /health, CPU per order; then the account
// object's memory across 1,000-order batches, the bundle and startup CPU.
// A benchmark, not a test: a missed goal is printed, never failed. Only an
// error (a tool that answers with an error, a failed request) exits non-zero.
//   npm run bench               the full run (a few minutes)
//   npm run bench -- --short    shorter rounds, to try it out
import { availableParallelism, cpus } from "node:os";
import { journeyFigures, toolListBytes } from "./lib/bench-journeys.ts";
import { benchReport } from "./lib/bench-report.ts";
import { RoundBook } from "./lib/bench-rounds.ts";
import { intakeStage, latencyStage, type Plan, type Round, readStage, sendStage } from "./lib/bench-stages.ts";
import { project } from "./lib/bench-targets.ts";
import { RUN_VARS, trafficRunFigure } from "./lib/bench-traffic-run.ts";
import { startDevServer } from "./lib/dev-server.ts";
import { connectFloor, type FloorOrder, PROJECT_ISOLATE, WITH_FLOOR } from "./lib/floor.ts";
import { connectIsolate, heapAfterCollection } from "./lib/inspector.ts";
import { describeJourney, LOAD_TEST_BUDGET, OPS_LOOP_BUDGET } from "./lib/journeys.ts";
import { workerdRssBytes } from "./lib/process-memory.ts";
import {
  BUNDLE_GOAL_GZIP_BYTES,
  buildBundle,
  describeStartup,
  kib,
  STARTUP_GOAL_MS,
  startupCpuMs,
} from "./lib/worker-figures.ts";
import { findWorkerdRuntime } from "./lib/workerd-runtime.ts";

const short = process.argv.includes("--short");
const plan: Plan = short
  ? { rounds: 3, seconds: 1, batches: 1, calls: 15, warmup: 5, short }
  : { rounds: 3, seconds: 3, batches: 3, calls: 60, warmup: 15, short };
const memoryBatches = short ? 2 : 5;
const TOKEN = "acme-dev-token";

// The product's entry with the SDK's own handler beside /mcp, to measure src/mcp/transport/ against.
const server = await startDevServer({
  vars: { MAX_BATCH: "1000", ...RUN_VARS },
  args: WITH_FLOOR,
  entry: "bench/sdk-handler/worker.ts",
});
let exitCode = 0;
const verdict = (met: boolean) => (met ? "met" : "NOT met");
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

try {
  console.log(
    `machine: ${availableParallelism()} cores (${cpus()[0]?.model ?? "unknown CPU"}), node ${process.version}, ${short ? "short" : "full"} run`,
  );
  const runtime = await findWorkerdRuntime(server.pid, Number(new URL(server.url).port));
  const inner = project(runtime.innerUrl, TOKEN);
  const proxy = project(server.url, TOKEN);
  const sdk = project(`${runtime.innerUrl}/bench/sdk`, TOKEN);
  const sdkNeeds = project(`${runtime.innerUrl}/bench/sdk-needs`, TOKEN);
  const noListCache = project(`${runtime.innerUrl}/bench/no-list-cache`, TOKEN);
  const floor = await connectFloor(runtime.innerUrl);
  // A valid order of the project's own generator; both sides post it under fresh request_ids.
  const template = ((await inner.tool("preview_order", { seed: 42 })) as { order: FloorOrder }).order;
  // The floor answers tools/list's own bytes: how well they compress is part of what answering them costs.
  const listBody = await inner.listBody();
  const listBytes = new TextEncoder().encode(listBody).byteLength;
  await floor.storeSized(listBody);
  // Load every module and let V8 optimize before anything counts.
  await inner.sendOrders(100);
  await floor.send("binding", 100);

  const book = new RoundBook();
  let errors = 0;
  for (let index = 0; index < plan.rounds; index++) {
    const round: Round = {
      book,
      inner,
      proxy,
      floor,
      sdk,
      sdkNeeds,
      noListCache,
      pid: runtime.pid,
      plan,
      template,
      index,
      errors: 0,
    };
    for (const [label, stage] of [
      ["order intake", intakeStage],
      ["send_orders", sendStage],
      ["reads", readStage],
      ["per-call latency", latencyStage],
    ] as const) {
      process.stderr.write(`round ${index + 1}/${plan.rounds}: ${label}\n`);
      await stage(round);
    }
    errors += round.errors;
  }
  const { lines } = benchReport({
    book,
    rounds: plan.rounds,
    seconds: plan.seconds,
    innerUrl: runtime.innerUrl,
    listBytes,
  });
  for (const line of lines) console.log(line);
  console.log(`\nfailed requests: ${errors}   goal 0 ${verdict(errors === 0)}`);

  // Generator capacity: on schedule at 0.85 of the floor's best object -> binding -> D1 rate, nothing dropped.
  process.stderr.write("traffic run at 0.85 of the floor\n");
  const onTime = 0.85 * book.best("send floor binding", "higher");
  const runSeconds = short ? 3 : 10;
  const steady = await trafficRunFigure(inner, onTime, runSeconds);
  console.log(
    `\ntraffic run, one generator object, ${onTime.toFixed(0)}/s (0.85 of the floor's object -> binding -> D1) for ${runSeconds} s, at most 8 in flight, entry port`,
  );
  console.log(
    `  accepted ${steady.accepted} of ${steady.planned} planned, sustained ${steady.ordersPerSecond.toFixed(0)}/s, dropped ${steady.dropped}   goal 0 dropped ${verdict(steady.dropped === 0)}`,
  );
  if (steady.limits.length > 0) console.log(`  limits the run reported: ${steady.limits.join("; ")}`);
  if (errors > 0) exitCode = 1;

  // What a model reads: the tool list it is handed, and the text of two journeys' answers.
  process.stderr.write("what a model reads\n");
  const listed = await toolListBytes(runtime.innerUrl, TOKEN);
  const journeys = await journeyFigures(runtime.innerUrl, TOKEN);
  console.log("\nwhat a model reads (the operator's token)");
  console.log(
    `  tools/list: ${listed.withoutOutput} bytes without output schemas   goal <= 24000 ${verdict(listed.withoutOutput <= 24_000)}; ${listed.whole} with them   goal <= 40000 ${verdict(listed.whole <= 40_000)}`,
  );
  console.log(describeJourney("ops loop", journeys.opsLoop, OPS_LOOP_BUDGET));
  console.log(describeJourney("load test", journeys.loadTest, LOAD_TEST_BUDGET));

  process.stderr.write("memory across 1,000-order batches\n");
  // The account object and the Worker share one isolate; its heap after a
  // full collection is what they keep. The process's resident memory also
  // holds SQLite's page cache, which grows with the stored orders.
  const nudge = () => inner.health();
  const inspector = await connectIsolate({
    runtimePort: runtime.inspectorPort,
    wranglerPort: server.inspectorPort,
    ...PROJECT_ISOLATE,
    nudge,
  });
  const heap: number[] = [await heapAfterCollection(inspector, nudge)];
  const rss: number[] = [await workerdRssBytes(server.pid)];
  for (let batch = 0; batch < memoryBatches; batch++) {
    await inner.sendOrders(1000);
    heap.push(await heapAfterCollection(inspector, nudge));
    rss.push(await workerdRssBytes(server.pid));
  }
  inspector.close();
  // The first batch loads code and warms caches; growth is judged after it.
  const heapGrowth = (heap.at(-1) ?? 0) - (heap[1] ?? 0);
  console.log(
    `\nWorker isolate heap after a full collection (the account object lives in it), before and after each 1,000-order batch`,
  );
  console.log(`  ${heap.map(mib).join(" -> ")}`);
  console.log(
    `  growth after the first batch: ${mib(heapGrowth)} over ${memoryBatches - 1} more batches   goal: flat (within 1 MiB) ${verdict(heapGrowth <= 1024 * 1024)}`,
  );
  console.log(`  workerd resident memory, same points (includes SQLite's page cache): ${rss.map(mib).join(" -> ")}`);

  process.stderr.write("bundle and startup\n");
  const gzip = buildBundle().reduce((sum, module) => sum + module.gzipBytes, 0);
  const startup = startupCpuMs();
  console.log(
    `\nbundle ${kib(gzip)} gzip   goal <= ${kib(BUNDLE_GOAL_GZIP_BYTES)} ${verdict(gzip <= BUNDLE_GOAL_GZIP_BYTES)}`,
  );
  console.log(
    `startup CPU ${describeStartup(startup)} (wrangler check startup)   goal <= ${STARTUP_GOAL_MS} ms ${verdict(startup.medianMs <= STARTUP_GOAL_MS)}`,
  );
} catch (error) {
  exitCode = 1;
  console.error(`bench failed: ${error instanceof Error ? error.message : String(error)}`);
} finally {
  await server.stop();
}
process.exit(exitCode);
