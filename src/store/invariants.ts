import { INVARIANTS, type InvariantName } from "./invariant-queries";

export type InvariantReport = Record<InvariantName, Record<string, unknown>[]>;

/** Runs every invariant; each entry lists the offending rows (none when it holds). */
export async function checkInvariants(db: D1Database): Promise<InvariantReport> {
  const names = Object.keys(INVARIANTS) as InvariantName[];
  const answers = await db.batch(names.map((name) => db.prepare(INVARIANTS[name])));
  return Object.fromEntries(names.map((name, index) => [name, (answers[index]?.results ?? []) as Record<string, unknown>[]])) as InvariantReport;
}

/** The same report as one readable line per broken invariant; empty when all hold. */
export function describeViolations(report: InvariantReport): string[] {
  return Object.entries(report)
    .filter(([, rows]) => rows.length > 0)
    .map(([name, rows]) => `${name}: ${rows.length}${rows.length === 20 ? "+" : ""} row(s), e.g. ${JSON.stringify(rows[0])}`);
}
