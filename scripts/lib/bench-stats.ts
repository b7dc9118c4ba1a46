// Timing helpers for `npm run bench`: interleaved rounds, percentiles and a
// closed-loop throughput run. Figures only; nothing here decides pass or fail.

export interface Figures {
  readonly name: string;
  readonly samples: number;
  readonly p50: number;
  readonly p90: number;
}

export function percentile(sorted: readonly number[], p: number): number {
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? Number.NaN;
}

export function figures(name: string, values: readonly number[]): Figures {
  const sorted = [...values].sort((a, b) => a - b);
  return { name, samples: sorted.length, p50: percentile(sorted, 50), p90: percentile(sorted, 90) };
}

export type Operation = () => Promise<void>;

/**
 * Runs every operation once per round, round after round, so each sees the
 * same machine conditions: on a busy 2-core machine, figures taken minutes
 * apart mostly measure the noise. The first `warmup` rounds are not counted.
 */
export async function interleaved(
  label: string,
  operations: Record<string, Operation>,
  rounds: number,
  warmup: number,
): Promise<Figures[]> {
  const times = new Map<string, number[]>(Object.keys(operations).map((name) => [name, []]));
  const every = Math.max(1, Math.ceil(rounds / 4));
  for (let round = -warmup; round < rounds; round++) {
    for (const [name, operation] of Object.entries(operations)) {
      const started = performance.now();
      await operation();
      if (round >= 0) times.get(name)?.push(performance.now() - started);
    }
    if (round >= 0 && (round + 1) % every === 0) process.stderr.write(`  ${label}: ${round + 1}/${rounds} rounds\n`);
  }
  return [...times].map(([name, values]) => figures(name, values));
}

export interface Throughput {
  readonly clients: number;
  readonly completed: number;
  readonly errors: number;
  readonly perSecond: number;
  /** How long the loop ran, to the last answer. */
  readonly seconds: number;
}

/** `clients` loops, each starting its next call as soon as the last one answers, for `seconds`. */
export async function closedLoop(
  clients: number,
  seconds: number,
  next: (client: number, call: number) => Promise<void>,
): Promise<Throughput> {
  let completed = 0;
  let errors = 0;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async (_, client) => {
      for (let call = 0; performance.now() < deadline; call++) {
        try {
          await next(client, call);
          completed++;
        } catch {
          errors++;
        }
      }
    }),
  );
  const elapsedSeconds = (performance.now() - started) / 1000;
  return { clients, completed, errors, perSecond: completed / elapsedSeconds, seconds: elapsedSeconds };
}

export const ms = (value: number): string => `${value.toFixed(1)} ms`;
export const median = (values: readonly number[]): number => figures("", values).p50;
