// `npm run bench`: starts `wrangler dev` on a free port and prints latency
// percentiles for a bare /health round trip, check_target, and send_orders with
// count 1 and count 100, then compares them with the project's speed goals.
// Figures, not a pass/fail test: machines differ.
import { callTool, connect } from "./lib/mcp.ts";
import { startDevServer } from "./lib/dev-server.ts";

interface Figures {
  readonly name: string;
  readonly samples: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
}

function percentile(sorted: readonly number[], p: number): number {
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? Number.NaN;
}

function figures(name: string, times: number[]): Figures {
  const sorted = [...times].sort((a, b) => a - b);
  return { name, samples: sorted.length, p50: percentile(sorted, 50), p90: percentile(sorted, 90), p99: percentile(sorted, 99) };
}

/**
 * Runs the operations in turn, round after round, so every one of them sees
 * the same machine conditions; comparing figures taken minutes apart on a
 * busy 2-core machine would mostly measure the noise.
 */
async function measureInterleaved(label: string, rounds: number, warmup: number, operations: Record<string, () => Promise<void>>): Promise<Figures[]> {
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(operations).map((name) => [name, []]));
  for (let round = 0; round < warmup + rounds; round++) {
    for (const [name, task] of Object.entries(operations)) {
      const started = performance.now();
      await task();
      if (round >= warmup) times[name]?.push(performance.now() - started);
    }
    if ((round + 1 - warmup) % Math.max(1, Math.ceil(rounds / 4)) === 0 && round >= warmup) process.stderr.write(`  ${label}: ${round + 1 - warmup}/${rounds}\n`);
  }
  return Object.entries(times).map(([name, list]) => figures(name, list));
}

const ms = (value: number) => `${value.toFixed(2)} ms`.padStart(10);

const server = await startDevServer();
let exitCode = 0;
try {
  const client = await connect(server.url, "acme-dev-token");
  const randomSeed = () => Math.floor(Math.random() * 4_000_000_000);
  const expectOk = async (name: string, args: Record<string, unknown>) => {
    const outcome = await callTool(client, name, args);
    if (outcome.isError) throw new Error(`${name} failed: ${outcome.text}`);
  };

  const results: Figures[] = [
    ...(await measureInterleaved("health vs check_target", 300, 30, {
      "GET /health": async () => {
        const response = await fetch(`${server.url}/health`);
        await response.arrayBuffer();
      },
      check_target: () => expectOk("check_target", {}),
    })),
    ...(await measureInterleaved("send_orders 1 vs 100", 25, 3, {
      "send_orders count=1": () => expectOk("send_orders", { count: 1, seed: randomSeed() }),
      "send_orders count=100": () => expectOk("send_orders", { count: 100, seed: randomSeed() }),
    })),
  ];
  await client.close();

  console.log("\nlatency over real HTTP against wrangler dev (lower is better)");
  console.log(`${"operation".padEnd(24)}${"samples".padStart(8)}${"p50".padStart(10)}${"p90".padStart(10)}${"p99".padStart(10)}`);
  for (const r of results) console.log(`${r.name.padEnd(24)}${String(r.samples).padStart(8)}${ms(r.p50)}${ms(r.p90)}${ms(r.p99)}`);

  const [health, target, one, hundred] = results;
  if (health && target && one && hundred) {
    const toolRatio = target.p50 / health.p50;
    const batchRatio = hundred.p50 / one.p50;
    console.log("\ngoals (p50 ratios)");
    console.log(`  check_target / health           ${toolRatio.toFixed(2)}x   goal <= 2x    ${toolRatio <= 2 ? "met" : "NOT met"}`);
    console.log(`  send_orders 100 / send_orders 1 ${batchRatio.toFixed(2)}x   goal <= 25x   ${batchRatio <= 25 ? "met" : "NOT met"}`);
  }
} catch (error) {
  exitCode = 1;
  console.error(`bench failed: ${error instanceof Error ? error.message : String(error)}`);
} finally {
  await server.stop();
}
process.exit(exitCode);
