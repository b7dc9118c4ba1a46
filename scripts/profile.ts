// `npm run profile`: where a request's CPU time goes. Starts `wrangler dev`
// with an unminified bundle and the bench's floor Worker beside the project,
// sends one kind of request over and over on workerd's entry port while one
// isolate is sampled through an inspector session, then prints the
// functions that took the most time and saves the profile for Chrome's
// DevTools (Performance panel, "Load profile"). The project's isolate also
// runs the account's Durable Object and the ORDER_API entrypoint.
//   npm run profile                              tools/list, 300 times
//   npm run profile -- --call get_order_status   any of the calls below
//   npm run profile -- --call send_orders --count 20 --size 100
//   npm run profile -- --call intake             POST /api/orders
//   npm run profile -- --call floor-send --count 20 --size 100
//                                                the floor's isolate (floor-ok, floor-read, floor-intake, floor-send)
// Time spent in D1 itself (another isolate) shows up here as idle.
import { writeFileSync } from "node:fs";
import { freshOrder, project } from "./lib/bench-targets.ts";
import { type CpuProfile, profileReport } from "./lib/cpu-profile.ts";
import { startDevServer } from "./lib/dev-server.ts";
import { connectFloor, FLOOR_ISOLATE, type FloorOrder, PROJECT_ISOLATE, WITH_FLOOR } from "./lib/floor.ts";
import { connectIsolate, sendNudged } from "./lib/inspector.ts";
import { findWorkerdRuntime } from "./lib/workerd-runtime.ts";

function option(name: string, fallback: string): string {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? (process.argv[index + 1] ?? fallback) : fallback;
}

const call = option("call", "tools/list");
const count = Number(option("count", "300"));
const size = Number(option("size", "1"));
const out = option("out", `profile-${call.replace(/\W+/g, "-")}.cpuprofile`);

const server = await startDevServer({ vars: { MAX_BATCH: "1000" }, args: ["--minify=false", ...WITH_FLOOR] });

let exitCode = 0;
try {
  const runtime = await findWorkerdRuntime(server.pid, Number(new URL(server.url).port));
  const ours = project(runtime.innerUrl, "acme-dev-token");
  const floor = await connectFloor(runtime.innerUrl);
  const template = ((await ours.tool("preview_order", { seed: 42 })) as { order: FloorOrder }).order;
  const tool = (name: string, args: Record<string, unknown>) => () => ours.tool(name, args);
  const CALLS: Record<string, () => Promise<unknown>> = {
    health: () => ours.health(),
    ping: () => ours.rpc("ping"),
    "tools/list": () => ours.rpc("tools/list"),
    get_order_status: tool("get_order_status", { order_id: "ORD-1001" }),
    get_order_details: tool("get_order_details", { order_id: "ORD-1003" }),
    list_order_exceptions: tool("list_order_exceptions", {}),
    check_target: tool("check_target", {}),
    send_orders: () => ours.sendOrders(size),
    intake: () => ours.postOrder(freshOrder(template)),
    "floor-ok": () => floor.ok(),
    "floor-read": () => floor.read(),
    "floor-intake": () => floor.intake(freshOrder(template)),
    "floor-send": () => floor.send("binding", size),
  };
  const send = CALLS[call];
  if (!send) throw new Error(`unknown --call ${call}; one of: ${Object.keys(CALLS).join(", ")}`);
  const isolate = call.startsWith("floor-") ? FLOOR_ISOLATE : PROJECT_ISOLATE;
  for (let i = 0; i < Math.min(50, count); i++) await send(); // warm up: load the modules, let V8 optimize
  const nudge = call.startsWith("floor-") ? () => floor.ok() : () => ours.health();
  const inspector = await connectIsolate({
    runtimePort: runtime.inspectorPort,
    wranglerPort: server.inspectorPort,
    ...isolate,
    nudge,
  });
  await sendNudged(inspector, "Profiler.enable", nudge);
  await sendNudged(inspector, "Profiler.setSamplingInterval", nudge, { interval: 250 });
  await sendNudged(inspector, "Profiler.start", nudge);
  for (let i = 0; i < count; i++) await send();
  const { profile } = await sendNudged<{ profile: CpuProfile }>(inspector, "Profiler.stop", nudge);
  inspector.close();
  writeFileSync(out, JSON.stringify(profile));
  for (const line of profileReport(
    profile,
    `${call}${call.endsWith("send") || call === "send_orders" ? ` (size ${size})` : ""}`,
    count,
  ))
    console.log(line);
  console.log(`\nprofile of ${isolate.isolate} saved to ${out}`);
} catch (error) {
  exitCode = 1;
  console.error(`profile failed: ${error instanceof Error ? error.message : String(error)}`);
} finally {
  await server.stop();
}
process.exit(exitCode);
