// One round of `npm run bench`: each stage measures ours and the floor's
// figure in turns of half a second or one batch (their order alternating at
// every turn), so both see the same machine. Figures go into the round book by name.

import type { RoundBook } from "./bench-rounds.ts";
import { closedLoop, interleaved, type Operation } from "./bench-stats.ts";
import { freshOrder, measured, type Project, settle } from "./bench-targets.ts";
import { trafficRunFigure } from "./bench-traffic-run.ts";
import type { Floor, FloorOrder } from "./floor.ts";

export interface Plan {
  readonly rounds: number;
  /** Seconds of each closed loop at 8 concurrent. */
  readonly seconds: number;
  /** send_orders batches of 100 per way and round. */
  readonly batches: number;
  /** Interleaved c=1 rounds per bench round, after the warm-up rounds. */
  readonly calls: number;
  readonly warmup: number;
  readonly short: boolean;
}

export interface Round {
  readonly book: RoundBook;
  readonly inner: Project;
  readonly proxy: Project;
  readonly floor: Floor;
  /**
   * The same credential and tools served by the SDK's own handler (bench/sdk-handler/worker.ts): everything, and what
   * the request needs.
   */
  readonly sdk: Project;
  readonly sdkNeeds: Project;
  /** /mcp without the kept tools/list answer (tool-list-cache.ts). */
  readonly noListCache: Project;
  /** The runtime's process, whose CPU time is read around each figure. */
  readonly pid: number;
  readonly plan: Plan;
  readonly template: FloorOrder;
  readonly index: number;
  /** Failed requests so far; any makes the bench exit non-zero. */
  errors: number;
}

export const CLIENTS = 8;

/** The sides in the order of one turn: it changes at every turn, and each round starts the other way round. */
function inTurn<T>(round: Round, turn: number, sides: readonly T[]): readonly T[] {
  return (round.index + turn) % 2 === 0 ? sides : [...sides].reverse();
}

/**
 * Each side's share of a round's closed loop is cut into slices of about this long, taken in turn with the other
 * sides'.
 */
const SLICE_SECONDS = 0.5;

/**
 * The sides' closed loops at 8 concurrent, in turns of half a second (the
 * order of the sides turning at every slice) until each has run the plan's
 * seconds: on a shared 2-core machine whose speed drifts within seconds, a
 * side measured in one block and the next side in another compare two
 * machines. Each side's rate is its calls over its own time; its CPU is the
 * runtime's, around each of its slices, with the work a slice left behind.
 */
async function loops(round: Round, sides: readonly (readonly [string, Operation])[]): Promise<void> {
  const slices = Math.max(1, Math.round(round.plan.seconds / SLICE_SECONDS));
  const totals = new Map(sides.map(([name]) => [name, { completed: 0, seconds: 0, cpuMs: 0 }]));
  await settle(round.pid);
  for (let slice = 0; slice < slices; slice++) {
    for (const [name, operation] of inTurn(round, slice, sides)) {
      const { result, cpuMs } = await measured(round.pid, () =>
        closedLoop(CLIENTS, round.plan.seconds / slices, operation),
      );
      const total = totals.get(name);
      if (!total) throw new Error(`no totals kept for ${name}`);
      total.completed += result.completed;
      total.seconds += result.seconds;
      total.cpuMs += cpuMs;
      round.errors += result.errors;
    }
  }
  for (const [name, total] of totals) {
    round.book.record(name, total.completed / total.seconds);
    round.book.record(`${name} cpu`, total.cpuMs / Math.max(1, total.completed));
  }
}

/** POST /api/orders at 8 concurrent, against the floor's intake route on the same port. */
export async function intakeStage(round: Round): Promise<void> {
  const { inner, proxy, floor, template } = round;
  const sides: [string, Operation][] = [
    ["intake ours", () => inner.postOrder(freshOrder(template))],
    ["intake floor", () => floor.intake(freshOrder(template))],
  ];
  await loops(round, sides);
  await loops(round, [["intake ours proxy", () => proxy.postOrder(freshOrder(template))]]);
}

/**
 * send_orders count 100 against the floor's object sending 100 the three
 * ways: over the binding to a D1 write (the project's shape), writing D1
 * itself, and over the binding without D1. Each way's median batch this round.
 */
export async function sendStage(round: Round): Promise<void> {
  const { inner, floor } = round;
  const ways: [string, () => Promise<{ accepted: number; seconds: number }>][] = [
    ["send ours", () => inner.sendOrders(100)],
    ["send floor binding", () => floor.send("binding", 100)],
    ["send floor direct", () => floor.send("direct", 100)],
    ["send floor nodb", () => floor.send("binding-nodb", 100)],
    ["send floor chained", () => floor.send("binding-chained", 100)],
  ];
  // One batch of each way in turn, the order turning at every batch, for the reason loops() gives.
  const batches = new Map(ways.map(([name]) => [name, { rates: [] as number[], accepted: 0, cpuMs: 0 }]));
  await settle(round.pid);
  for (let batch = 0; batch < round.plan.batches; batch++) {
    for (const [name, send] of inTurn(round, batch, ways)) {
      const { result, cpuMs } = await measured(round.pid, send);
      const way = batches.get(name);
      if (!way) throw new Error(`no figures kept for ${name}`);
      way.rates.push(result.accepted / result.seconds);
      way.accepted += result.accepted;
      way.cpuMs += cpuMs;
    }
  }
  for (const [name, way] of batches) {
    const rates = [...way.rates].sort((a, b) => a - b);
    round.book.record(name, rates[Math.floor(rates.length / 2)] ?? Number.NaN);
    round.book.record(`${name} cpu`, way.cpuMs / Math.max(1, way.accepted));
  }
  // Offered twice what the floor's object sent this round, so the figure is what one generator object can sustain.
  const floorRate = round.book.values("send floor binding").at(-1) ?? 400;
  const run = await trafficRunFigure(inner, 2 * floorRate, round.plan.short ? 2 : 5);
  round.book.record("run ours", run.ordersPerSecond);
  round.book.record("run ours offered", 2 * floorRate);
  round.book.record("run ours dropped", run.dropped);
}

/** The reads the bench times at 8 concurrent, on both ports. */
export const CONCURRENT_READS: readonly (readonly [string, Record<string, unknown>])[] = [
  ["list_order_exceptions", {}],
  ["get_order_details", { order_id: "ORD-1003" }],
];

/**
 * MCP reads at 8 concurrent on the entry port, with /health and the floor's
 * reads beside them; then the same reads through wrangler's proxy (the port
 * `npm run dev` prints, where a person points a client), against /health
 * there. The floor is reachable on the entry port only.
 */
export async function readStage(round: Round): Promise<void> {
  const { inner, proxy, floor } = round;
  const reads: [string, Operation][] = [
    ["read health", () => inner.health()],
    ["read floor ok", () => floor.ok()],
    ["read floor d1", () => floor.read()],
    ["read floor mcp", () => floor.mcpRead()],
    ...CONCURRENT_READS.map(
      ([name, args]) => [`read ${name}`, () => inner.tool(name, args).then(() => undefined)] as [string, Operation],
    ),
  ];
  await loops(round, reads);
  await loops(round, [
    ["read proxy health", () => proxy.health()],
    ...CONCURRENT_READS.map(
      ([name, args]) =>
        [`read proxy ${name}`, () => proxy.tool(name, args).then(() => undefined)] as [string, Operation],
    ),
  ]);
}

/** The c=1 calls: on the entry port and through wrangler's proxy, each against /health on the same port. */
export const LATENCY_CALLS: readonly (readonly [string, Record<string, unknown>])[] = [
  ["ping", {}],
  ["tools/list", {}],
  ["get_order_status", { order_id: "ORD-1001" }],
  ["list_order_exceptions", {}],
  ["get_order_details", { order_id: "ORD-1003" }],
  ["preview_order", { seed: 42 }],
  ["check_target", {}],
  ["send_orders count 1", {}],
];

/** The calls /mcp is measured on against the SDK's own handler: the transport's pieces are the only difference. */
export const TRANSPORT_CALLS = LATENCY_CALLS.filter(([name]) =>
  ["ping", "tools/list", "get_order_status", "get_order_details", "preview_order"].includes(name),
);

function callOf(project: Project, name: string, args: Record<string, unknown>): Operation {
  if (name === "ping" || name === "tools/list") return () => project.rpc(name).then(() => undefined);
  if (name === "send_orders count 1") return () => project.sendOrders(1).then(() => undefined);
  return () => project.tool(name, args).then(() => undefined);
}

export async function latencyStage(round: Round): Promise<void> {
  const { inner, proxy, floor } = round;
  const operations: Record<string, Operation> = {
    "inner /health": () => inner.health(),
    "inner floor ok": () => floor.ok(),
    "inner floor d1": () => floor.read(),
    "inner floor mcp": () => floor.mcpRead(),
    "inner floor sized": () => floor.sized(),
    "inner floor send 1": () => floor.send("binding", 1).then(() => undefined),
    "proxy /health": () => proxy.health(),
  };
  for (const [name, args] of LATENCY_CALLS) {
    operations[`inner ${name}`] = callOf(inner, name, args);
    operations[`proxy ${name}`] = callOf(proxy, name, args);
  }
  for (const [name, args] of TRANSPORT_CALLS) {
    operations[`sdk ${name}`] = callOf(round.sdk, name, args);
    operations[`sdk-needs ${name}`] = callOf(round.sdkNeeds, name, args);
  }
  operations["nocache tools/list"] = callOf(round.noListCache, "tools/list", {});
  const figures = await interleaved(
    `c=1 calls, round ${round.index + 1}`,
    operations,
    round.plan.calls,
    round.plan.warmup,
  );
  for (const row of figures) round.book.record(`c1 ${row.name}`, row.p50);
}
