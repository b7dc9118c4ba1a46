// `npm run profile`: where a request's CPU time goes. Starts `wrangler dev`
// with an unminified bundle, sends one kind of request over and over while the
// Worker's isolate (which also runs the account's Durable Object and the
// ORDER_API entrypoint) is sampled through the DevTools protocol, then prints
// the functions that took the most time and saves the profile for Chrome's
// DevTools (Performance panel, "Load profile").
//   npm run profile                              tools/list, 300 times
//   npm run profile -- --call get_order_status   any of the calls below
//   npm run profile -- --call send_orders --count 20 --size 100
// Time spent in D1 itself (another isolate) shows up here as idle.
import { writeFileSync } from "node:fs";
import { startDevServer } from "./lib/dev-server.ts";
import { connectInspector } from "./lib/inspector.ts";
import { rawRpc } from "./lib/mcp.ts";

function option(name: string, fallback: string): string {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? (process.argv[index + 1] ?? fallback) : fallback;
}

const call = option("call", "tools/list");
const count = Number(option("count", "300"));
const size = Number(option("size", "1"));
const out = option("out", `profile-${call.replace(/\W+/g, "-")}.cpuprofile`);

const server = await startDevServer({ vars: { MAX_BATCH: "1000" }, args: ["--minify=false"] });
const rpc = (method: string, params?: Record<string, unknown>) => rawRpc(server.url, "acme-dev-token", method, params);
const tool = (name: string, args: Record<string, unknown>) => () => rpc("tools/call", { name, arguments: args });
const CALLS: Record<string, () => Promise<unknown>> = {
  health: () => fetch(`${server.url}/health`).then((response) => response.text()),
  ping: () => rpc("ping"),
  "tools/list": () => rpc("tools/list"),
  get_order_status: tool("get_order_status", { order_id: "ORD-1001" }),
  get_order_details: tool("get_order_details", { order_id: "ORD-1003" }),
  list_order_exceptions: tool("list_order_exceptions", {}),
  check_target: tool("check_target", {}),
  send_orders: () => rpc("tools/call", { name: "send_orders", arguments: { count: size, seed: Math.floor(Math.random() * 4e9) } }),
};

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

function report(profile: Profile): void {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parents = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  const label = (node: ProfileNode) => `${node.callFrame.functionName || "(anonymous)"} ${node.callFrame.url.split("/").pop() ?? ""}:${node.callFrame.lineNumber + 1}`;
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let active = 0;
  profile.samples.forEach((id, index) => {
    const micros = profile.timeDeltas[index] ?? 0;
    const node = nodes.get(id);
    if (!node || node.callFrame.functionName === "(idle)") return;
    active += micros;
    self.set(label(node), (self.get(label(node)) ?? 0) + micros);
    const seen = new Set<string>();
    for (let current: number | undefined = id; current !== undefined; current = parents.get(current)) {
      const frame = nodes.get(current);
      if (!frame) break;
      const name = label(frame);
      if (!seen.has(name)) inclusive.set(name, (inclusive.get(name) ?? 0) + micros);
      seen.add(name);
    }
  });
  const top = (table: Map<string, number>) =>
    [...table]
      .filter(([name]) => !name.startsWith("(root)"))
      .sort((a, b) => b[1] - a[1])
      .slice(0, 25)
      .map(([name, micros]) => `  ${(micros / 1000).toFixed(1).padStart(8)} ms ${((100 * micros) / active).toFixed(1).padStart(5)}%  ${name}`)
      .join("\n");
  console.log(`\n${call} x ${count}: ${(active / 1000).toFixed(0)} ms of CPU sampled in the Worker's isolate, ${(active / 1000 / count).toFixed(2)} ms per call`);
  console.log(`\nself time (the function's own code):\n${top(self)}`);
  console.log(`\ninclusive time (with everything it called):\n${top(inclusive)}`);
}

let exitCode = 0;
try {
  const send = CALLS[call];
  if (!send) throw new Error(`unknown --call ${call}; one of: ${Object.keys(CALLS).join(", ")}`);
  for (let i = 0; i < Math.min(50, count); i++) await send(); // warm up: load the modules, let V8 optimize
  const inspector = await connectInspector(server.inspectorPort);
  await inspector.send("Profiler.enable");
  await inspector.send("Profiler.setSamplingInterval", { interval: 250 });
  await inspector.send("Profiler.start");
  for (let i = 0; i < count; i++) await send();
  const { profile } = await inspector.send<{ profile: Profile }>("Profiler.stop", {}, 120_000);
  inspector.close();
  writeFileSync(out, JSON.stringify(profile));
  report(profile);
  console.log(`\nprofile saved to ${out}`);
} catch (error) {
  exitCode = 1;
  console.error(`profile failed: ${error instanceof Error ? error.message : String(error)}`);
} finally {
  await server.stop();
}
process.exit(exitCode);
