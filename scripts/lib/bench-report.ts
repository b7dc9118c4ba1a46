// What `npm run bench` prints from its rounds: every figure of ours beside
// the floor it is held to, then the floor's own variants, which say where
// the platform's limit is when a ratio is missed.
import { readPortLines } from "./bench-read-ports.ts";
import { formatRow, goalMet, header, type RoundBook, type Row } from "./bench-rounds.ts";
import { LATENCY_CALLS } from "./bench-stages.ts";
import { transportLines, transportRows } from "./bench-transport-report.ts";

const at = (ratio: number) => ({ ratio, better: "higher" as const });
const within = (ratio: number) => ({ ratio, better: "lower" as const });

/** c=1 latency goals, as multiples of /health on the same port. */
const LATENCY_GOALS: Readonly<Record<string, number>> = {
  ping: 1.25,
  "tools/list": 1.3,
  get_order_details: 1.6,
  get_order_status: 1.6,
  list_order_exceptions: 1.6,
  preview_order: 1.6,
  check_target: 1.6,
  "send_orders count 1": 1.8,
};

const cpuRow = (label: string, ours: string, base: string): Row => ({
  label,
  ours: `${ours} cpu`,
  base: `${base} cpu`,
  better: "lower",
  unit: "ms",
});

function section(book: RoundBook, title: string, base: string, rows: readonly Row[]): string[] {
  return [
    header(title, base),
    ...rows.filter((row) => book.has(row.ours) && book.has(row.base)).map((row) => `  ${formatRow(book, row)}`),
  ];
}

const perSecond = (book: RoundBook, name: string) => `${book.best(name, "higher").toFixed(0)}/s`;
const cpuMs = (book: RoundBook, name: string) => `${book.best(`${name} cpu`, "lower").toFixed(2)} ms`;

export interface ReportInput {
  readonly book: RoundBook;
  readonly rounds: number;
  readonly seconds: number;
  readonly innerUrl: string;
  readonly listBytes: number;
}

/** The report's lines, and whether every goal held. */
export function benchReport({ book, rounds, seconds, innerUrl, listBytes }: ReportInput): {
  lines: string[];
  allMet: boolean;
} {
  const rows: Row[] = [];
  const lines: string[] = [
    `ours: the project; floor: bench/floor (order-ops-floor), the same hops without our work, in the same workerd`,
    `entry port: workerd's own (${innerUrl}), no wrangler proxy in front, like a deployment`,
    `each row is the best of ${rounds} interleaved rounds by its ratio, both figures from that round; "ratio per round" is ours/floor in each round`,
    `figures outside the rows (the floor's ways, the proxy's rate) are the best of the rounds`,
    `CPU: the runtime process's user+system time around the figure (Worker, objects and local D1 together), per request`,
  ];
  const intake: Row[] = [
    {
      label: "POST /api/orders vs floor POST /intake",
      ours: "intake ours",
      base: "intake floor",
      better: "higher",
      unit: "/s",
      goal: at(0.85),
    },
    cpuRow("  CPU per accepted order", "intake ours", "intake floor"),
  ];
  lines.push(...section(book, `order intake, ${8} concurrent clients for ${seconds} s, entry port`, "floor", intake));
  lines.push(
    `  through wrangler's proxy, POST /api/orders: ${perSecond(book, "intake ours proxy")} (the floor is reachable on the entry port only)`,
  );

  const send: Row[] = [
    {
      label: "send_orders 100 vs object->binding->D1",
      ours: "send ours",
      base: "send floor binding",
      better: "higher",
      unit: "/s",
      goal: at(0.85),
    },
    cpuRow("  CPU per accepted order", "send ours", "send floor binding"),
    // The project's audit chain is promised; this row says how near the platform's price of it we come.
    {
      label: "send_orders 100 vs the same, with an audit chain",
      ours: "send ours",
      base: "send floor chained",
      better: "higher",
      unit: "/s",
    },
    {
      label: "traffic run, sustained, 8 in flight, vs same",
      ours: "run ours",
      base: "send floor binding",
      better: "higher",
      unit: "/s",
      goal: at(0.85),
    },
  ];
  lines.push(
    ...section(
      book,
      "orders sent by the account's object, 8 in flight, median batch of each round, entry port",
      "floor",
      send,
    ),
  );
  if (book.has("run ours")) {
    const offered = book
      .values("run ours offered")
      .map((rate) => `${rate.toFixed(0)}/s`)
      .join(" ");
    const dropped = book.values("run ours dropped").join(" ");
    lines.push(
      `  the traffic run was offered twice the floor's rate (${offered} per round) and dropped ${dropped} orders per round: what it sent is what one object sustains`,
    );
  }
  lines.push(
    "  the floor's object, four ways (where the limit is):",
    `    over the binding, D1 batch      ${perSecond(book, "send floor binding").padStart(7)}   CPU ${cpuMs(book, "send floor binding")} per order`,
    `    the same, with an audit chain   ${perSecond(book, "send floor chained").padStart(7)}   CPU ${cpuMs(book, "send floor chained")} per order`,
    `    writing D1 itself, no binding   ${perSecond(book, "send floor direct").padStart(7)}   CPU ${cpuMs(book, "send floor direct")} per order`,
    `    over the binding, no D1         ${perSecond(book, "send floor nodb").padStart(7)}   CPU ${cpuMs(book, "send floor nodb")} per order`,
  );
  rows.push(...intake, ...send);

  const reads: Row[] = [
    {
      label: "list_order_exceptions",
      ours: "read list_order_exceptions",
      base: "read health",
      better: "higher",
      unit: "/s",
      goal: at(0.6),
    },
    {
      label: "get_order_details",
      ours: "read get_order_details",
      base: "read health",
      better: "higher",
      unit: "/s",
      goal: at(0.6),
    },
    { label: "floor: GET /ok", ours: "read floor ok", base: "read health", better: "higher", unit: "/s" },
    { label: "floor: one D1 read by id", ours: "read floor d1", base: "read health", better: "higher", unit: "/s" },
    {
      label: "floor: an SDK tool reading D1 once",
      ours: "read floor mcp",
      base: "read health",
      better: "higher",
      unit: "/s",
    },
    {
      label: "list_order_exceptions vs the floor's D1 read",
      ours: "read list_order_exceptions",
      base: "read floor d1",
      better: "higher",
      unit: "/s",
    },
    {
      label: "get_order_details vs the floor's D1 read",
      ours: "read get_order_details",
      base: "read floor d1",
      better: "higher",
      unit: "/s",
    },
    {
      label: "get_order_details vs the floor's SDK tool",
      ours: "read get_order_details",
      base: "read floor mcp",
      better: "higher",
      unit: "/s",
    },
    cpuRow("CPU per call: list_order_exceptions", "read list_order_exceptions", "read health"),
    cpuRow("CPU per call: get_order_details", "read get_order_details", "read health"),
    cpuRow("CPU per call: floor D1 read by id", "read floor d1", "read health"),
    cpuRow("CPU per call: floor SDK tool, D1 once", "read floor mcp", "read health"),
  ];
  lines.push(
    ...section(
      book,
      `reads, ${8} concurrent clients for ${seconds} s, entry port; base: our GET /health unless the row names another`,
      "base",
      reads,
    ),
  );
  rows.push(...reads);

  for (const port of ["inner", "proxy"] as const) {
    const base = `c1 ${port} /health`;
    const latency: Row[] = LATENCY_CALLS.map(([name]) => ({
      label: name,
      ours: `c1 ${port} ${name}`,
      base,
      better: "lower" as const,
      unit: "ms" as const,
      ...(LATENCY_GOALS[name] === undefined ? {} : { goal: within(LATENCY_GOALS[name]) }),
    }));
    if (port === "inner") {
      latency.push({ label: "floor: GET /ok", ours: "c1 inner floor ok", base, better: "lower", unit: "ms" });
      latency.push({ label: "floor: one D1 read by id", ours: "c1 inner floor d1", base, better: "lower", unit: "ms" });
      latency.push({
        label: `floor: tools/list's ${(listBytes / 1024).toFixed(0)} KiB body`,
        ours: "c1 inner floor sized",
        base,
        better: "lower",
        unit: "ms",
      });
      latency.push({
        label: "tools/list vs that floor",
        ours: "c1 inner tools/list",
        base: "c1 inner floor sized",
        better: "lower",
        unit: "ms",
      });
      latency.push({
        label: "get_order_details vs the floor's D1 read",
        ours: "c1 inner get_order_details",
        base: "c1 inner floor d1",
        better: "lower",
        unit: "ms",
      });
      latency.push({
        label: "floor: an SDK tool reading D1 once",
        ours: "c1 inner floor mcp",
        base,
        better: "lower",
        unit: "ms",
      });
      latency.push({
        label: "get_order_details vs that floor",
        ours: "c1 inner get_order_details",
        base: "c1 inner floor mcp",
        better: "lower",
        unit: "ms",
      });
      latency.push({
        label: "get_order_status vs that floor",
        ours: "c1 inner get_order_status",
        base: "c1 inner floor mcp",
        better: "lower",
        unit: "ms",
      });
      latency.push({
        label: "floor: its object sends one order",
        ours: "c1 inner floor send 1",
        base,
        better: "lower",
        unit: "ms",
      });
      latency.push({
        label: "send_orders count 1 vs that floor",
        ours: "c1 inner send_orders count 1",
        base: "c1 inner floor send 1",
        better: "lower",
        unit: "ms",
      });
    }
    const where = port === "inner" ? "entry port" : "through wrangler's proxy";
    lines.push(
      ...section(
        book,
        `per call, 1 client, p50, ${where} (raw JSON-RPC, protocol 2025-11-25); base: GET /health on the same port unless the row names another`,
        "base",
        latency,
      ),
    );
    rows.push(...latency);
  }
  const transport = transportRows();
  lines.push(...transportLines(book, transport));
  rows.push(...transport);
  lines.push(...readPortLines(book, seconds));
  const allMet = rows.every((row) => !book.has(row.ours) || goalMet(book, row) !== false);
  return { lines, allMet };
}
