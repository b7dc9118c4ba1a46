// The read figures of `npm run bench` on both ports, as absolute figures:
// a person comparing this server with another one locally points a client at
// the port `npm run dev` prints, which is wrangler's proxy, while the rows
// held to the floor use workerd's own port, like a deployment. Both are
// printed so neither comparison is made with the wrong one.
import { formatRow, header, type RoundBook, type Row } from "./bench-rounds.ts";
import { CONCURRENT_READS, LATENCY_CALLS } from "./bench-stages.ts";

const READS = ["get_order_status", "list_order_exceptions", "get_order_details"] as const;

const perSecond = (value: number) => (Number.isFinite(value) ? `${value.toFixed(0)}/s` : "n/a");
const ms = (value: number) => (Number.isFinite(value) ? `${value.toFixed(2)} ms` : "n/a");

/** The c=8 reads through wrangler's proxy, against /health there, as rows like the entry port's. */
function proxyRows(book: RoundBook, seconds: number): string[] {
  const rows: Row[] = CONCURRENT_READS.map(([name]) => ({
    label: name,
    ours: `read proxy ${name}`,
    base: "read proxy health",
    better: "higher",
    unit: "/s",
  }));
  const present = rows.filter((row) => book.has(row.ours) && book.has(row.base));
  if (present.length === 0) return [];
  return [
    header(
      `reads, 8 concurrent clients for ${seconds} s, through wrangler's proxy (npm run dev's port); base: GET /health on the same port`,
      "base",
    ),
    ...present.map((row) => `  ${formatRow(book, row)}`),
  ];
}

/** One line per read: p50 at 1 client and calls a second at 8, on each port; the best round of each figure. */
export function readPortLines(book: RoundBook, seconds: number): string[] {
  const timedAtOne = new Set(LATENCY_CALLS.map(([name]) => name));
  const timedAtEight = new Set(CONCURRENT_READS.map(([name]) => name));
  const cells = (name: string) => [
    timedAtOne.has(name) ? ms(book.best(`c1 inner ${name}`, "lower")) : "",
    timedAtOne.has(name) ? ms(book.best(`c1 proxy ${name}`, "lower")) : "",
    timedAtEight.has(name) ? perSecond(book.best(`read ${name}`, "higher")) : "",
    timedAtEight.has(name) ? perSecond(book.best(`read proxy ${name}`, "higher")) : "",
  ];
  const line = (label: string, values: readonly string[]) =>
    `  ${label.padEnd(24)}${values.map((value) => value.padStart(15)).join("")}`;
  return [
    ...proxyRows(book, seconds),
    "",
    "reads on both ports, absolute (best round of each figure): what to compare with another server run locally",
    line("", ["c=1 p50 entry", "c=1 p50 dev", "c=8 entry", "c=8 dev"]),
    line("GET /health", [
      ms(book.best("c1 inner /health", "lower")),
      ms(book.best("c1 proxy /health", "lower")),
      perSecond(book.best("read health", "higher")),
      perSecond(book.best("read proxy health", "higher")),
    ]),
    ...READS.map((name) => line(name, cells(name))),
    "  entry: workerd's own port, no proxy in front, like a deployment; dev: the port `npm run dev` prints (wrangler's proxy)",
  ];
}
