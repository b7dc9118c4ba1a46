// The transport's account in `npm run bench`: each call on /mcp beside the
// same call served by the SDK's own handler (bench/sdk-handler/worker.ts), in
// the same round and isolate. A piece of src/mcp/transport/ stays while its
// row shows it pays (its ledger, src/mcp/transport/README.md, names the margin).
import { formatRow, header, type RoundBook, type Row } from "./bench-rounds.ts";
import { TRANSPORT_CALLS } from "./bench-stages.ts";

const compared = (label: string, ours: string, base: string): Row => ({
  label,
  ours,
  base,
  better: "lower",
  unit: "ms",
});

/** The rows, per call: the whole transport, then its two halves (servers built for the request's needs; the pool). */
export function transportRows(): Row[] {
  return TRANSPORT_CALLS.flatMap(([name]) => [
    compared(`${name}: /mcp vs the SDK's handler`, `c1 inner ${name}`, `c1 sdk ${name}`),
    compared(`  a server of what it needs vs of everything`, `c1 sdk-needs ${name}`, `c1 sdk ${name}`),
    compared(`  /mcp vs the SDK's handler with that server`, `c1 inner ${name}`, `c1 sdk-needs ${name}`),
    ...(name === "tools/list"
      ? [compared(`  /mcp with the kept listing vs without`, `c1 inner ${name}`, `c1 nocache ${name}`)]
      : []),
  ]);
}

export function transportLines(book: RoundBook, rows: readonly Row[]): string[] {
  return [
    header(
      "MCP transport, per call, 1 client, p50, entry port (protocol 2025-11-25); base: the SDK's createMcpHandler (legacy: stateless), same tools and credential",
      "base",
    ),
    ...rows.filter((row) => book.has(row.ours) && book.has(row.base)).map((row) => `  ${formatRow(book, row)}`),
  ];
}
