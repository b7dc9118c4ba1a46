// Figures taken once per round, and what `npm run bench` prints from them:
// each of ours with its floor, the best of the rounds, and the ratio both as
// the best figures give it and as each round gave it (so the noise of a busy
// machine shows). Printing only; a missed goal never fails the bench.

export type Better = "higher" | "lower";

/** Every figure, by name, in round order. */
export class RoundBook {
  private readonly figures = new Map<string, number[]>();

  record(name: string, value: number): void {
    const values = this.figures.get(name) ?? [];
    values.push(value);
    this.figures.set(name, values);
  }

  values(name: string): readonly number[] {
    return this.figures.get(name) ?? [];
  }

  has(name: string): boolean {
    return this.values(name).length > 0;
  }

  best(name: string, better: Better): number {
    const values = this.values(name).filter(Number.isFinite);
    if (values.length === 0) return Number.NaN;
    return better === "higher" ? Math.max(...values) : Math.min(...values);
  }

  /** `ours / base` in each round where both were taken. */
  roundRatios(ours: string, base: string): number[] {
    const theirs = this.values(base);
    return this.values(ours).flatMap((value, round) => {
      const other = theirs[round];
      return other === undefined || !Number.isFinite(value) || !Number.isFinite(other) ? [] : [value / other];
    });
  }
}

export interface Goal {
  /** The ratio must be at least this (rates) or at most this (latency, CPU). */
  readonly ratio: number;
  readonly better: Better;
}

export interface Row {
  readonly label: string;
  readonly ours: string;
  readonly base: string;
  readonly better: Better;
  readonly unit: "/s" | "ms";
  readonly goal?: Goal;
}

const verdict = (met: boolean) => (met ? "met" : "NOT met");

function figure(value: number, unit: Row["unit"]): string {
  if (!Number.isFinite(value)) return "n/a";
  return unit === "/s" ? `${value.toFixed(0)}/s` : `${value.toFixed(value < 10 ? 2 : 1)} ms`;
}

/** Whether the row's goal holds on the best figures; undefined without a goal. */
export function goalMet(book: RoundBook, row: Row): boolean | undefined {
  if (!row.goal) return undefined;
  const ratio = book.best(row.ours, row.better) / book.best(row.base, row.better);
  return row.goal.better === "higher" ? ratio >= row.goal.ratio : ratio <= row.goal.ratio;
}

const WIDTHS = [44, 11, 11, 8, 16] as const;
const pad = (cells: readonly string[]) => cells.map((cell, i) => (i === 0 ? cell.padEnd(WIDTHS[0]) : cell.padStart(WIDTHS[i] ?? 0))).join("");

export function header(title: string, base: string): string {
  return `\n${title}\n${pad(["", "ours", base, "ratio", "goal"])}   ratio per round`;
}

export function formatRow(book: RoundBook, row: Row): string {
  const ours = book.best(row.ours, row.better);
  const base = book.best(row.base, row.better);
  const ratio = ours / base;
  const met = goalMet(book, row);
  const goal = row.goal === undefined ? "" : `${row.goal.better === "higher" ? ">=" : "<="} ${row.goal.ratio} ${verdict(met === true)}`;
  const perRound = book
    .roundRatios(row.ours, row.base)
    .map((r) => r.toFixed(2))
    .join(" ");
  return `${pad([row.label, figure(ours, row.unit), figure(base, row.unit), Number.isFinite(ratio) ? ratio.toFixed(2) : "n/a", goal])}   ${perRound}`;
}
