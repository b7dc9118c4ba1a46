// Figures taken once per round, and what `npm run bench` prints from them:
// each of ours with its floor as the round with the best ratio gave them,
// and every round's ratio beside it (so the noise of a busy machine shows).
// A ratio is only ever taken within a round: the sides of a round take turns
// within seconds, while this machine's speed drifts between rounds, so the
// best figure of one side and the best of the other are often from different
// rounds, and their quotient compares a fast moment with a slow one.
// Printing only; a missed goal never fails the bench.

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
    return this.pairs(ours, base).map((pair) => pair.ratio);
  }

  /**
   * The round whose ratio is best (highest for rates, lowest for latency and CPU); undefined when no round took both.
   */
  bestRound(ours: string, base: string, better: Better): RoundPair | undefined {
    const pairs = this.pairs(ours, base);
    if (pairs.length === 0) return undefined;
    return pairs.reduce((best, pair) =>
      (better === "higher" ? pair.ratio > best.ratio : pair.ratio < best.ratio) ? pair : best,
    );
  }

  private pairs(ours: string, base: string): RoundPair[] {
    const theirs = this.values(base);
    return this.values(ours).flatMap((value, round) => {
      const other = theirs[round];
      return other === undefined || !Number.isFinite(value) || !Number.isFinite(other)
        ? []
        : [{ round, ours: value, base: other, ratio: value / other }];
    });
  }
}

/** Both sides' figures from one round, and their ratio. */
export interface RoundPair {
  readonly round: number;
  readonly ours: number;
  readonly base: number;
  readonly ratio: number;
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

/** Whether the goal holds for that round; undefined without a goal or without a round that took both sides. */
function holds(goal: Goal | undefined, best: RoundPair | undefined): boolean | undefined {
  if (!goal || !best) return undefined;
  return goal.better === "higher" ? best.ratio >= goal.ratio : best.ratio <= goal.ratio;
}

/** Whether the row's goal holds in its best round; undefined without a goal or without a round that took both sides. */
export function goalMet(book: RoundBook, row: Row): boolean | undefined {
  return holds(row.goal, book.bestRound(row.ours, row.base, row.better));
}

const WIDTHS = [44, 11, 11, 8, 16] as const;
const pad = (cells: readonly string[]) =>
  cells.map((cell, i) => (i === 0 ? cell.padEnd(WIDTHS[0]) : cell.padStart(WIDTHS[i] ?? 0))).join("");

export function header(title: string, base: string): string {
  return `\n${title}\n${pad(["", "ours", base, "ratio", "goal"])}   ratio per round`;
}

export function formatRow(book: RoundBook, row: Row): string {
  const best = book.bestRound(row.ours, row.base, row.better);
  const met = holds(row.goal, best);
  const goal =
    row.goal === undefined
      ? ""
      : `${row.goal.better === "higher" ? ">=" : "<="} ${row.goal.ratio} ${verdict(met === true)}`;
  const perRound = book
    .roundRatios(row.ours, row.base)
    .map((r) => r.toFixed(2))
    .join(" ");
  const [ours, base, ratio] = best
    ? [figure(best.ours, row.unit), figure(best.base, row.unit), best.ratio.toFixed(2)]
    : ["n/a", "n/a", "n/a"];
  return `${pad([row.label, ours, base, ratio, goal])}   ${perRound}`;
}
