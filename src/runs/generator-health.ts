/**
 * Whether the generator, not the target, limited a run. The generator's own
 * delay is how late it handed an order to fetch while a request slot was
 * free (its timers and launches running late: a busy isolate, a starved
 * machine); an order it then dropped is its own drop, not the target's.
 * Past GENERATOR_DELAY_BOUND_MS at p99, or with any drop of its own, the
 * figures describe the generator as much as the target, and a verdict that
 * would fail is inconclusive instead.
 */
import { z } from "zod/v4";
import { Histogram, type HistogramData } from "./histogram";

/** A generator whose p99 delay is beyond this was the limit: it is a tenth of a second of the latency it reports. */
export const GENERATOR_DELAY_BOUND_MS = 100;

/**
 * After a stall, the orders due during it leave at most this many times
 * faster than planned (k6 drops an iteration it cannot start on time rather
 * than bursting); those that would leave later than the allowed lateness
 * are dropped as the generator's.
 */
export const CATCH_UP_FACTOR = 2;

export const GeneratorHealthSchema = z.object({
  limited: z
    .boolean()
    .describe(
      `true when the generator itself limited the run: it dropped orders while request slots were free, or its own delay had a p99 over ${GENERATOR_DELAY_BOUND_MS} ms. Then a verdict that would fail on latency or load is inconclusive: the figures describe the generator as much as the target`,
    ),
  dropped: z
    .number()
    .int()
    .describe(
      `Of dropped, the orders the generator dropped although a request slot was free: it woke too late, or sending them would have burst at more than ${CATCH_UP_FACTOR}x the planned rate after a stall. The rest were held back by the target (every slot taken)`,
    ),
  delay_p99_ms: z
    .number()
    .describe("99th percentile of how late the generator handed orders to fetch while a request slot was free"),
  delay_max_ms: z.number().describe("The generator's longest such delay: its longest stall"),
  bound_ms: z.number().describe("The p99 delay above which the generator counts as the limit"),
});
export type GeneratorHealth = z.infer<typeof GeneratorHealthSchema>;

export function generatorHealth(figures: { dropped_generator: number; delay: HistogramData }): GeneratorHealth {
  const delay = Histogram.from(figures.delay).figures();
  return {
    limited: figures.dropped_generator > 0 || delay.p99_ms > GENERATOR_DELAY_BOUND_MS,
    dropped: figures.dropped_generator,
    delay_p99_ms: delay.p99_ms,
    delay_max_ms: delay.max_ms,
    bound_ms: GENERATOR_DELAY_BOUND_MS,
  };
}

/** What to change, in the words a limits line and an inconclusive verdict both use. */
export const GENERATOR_ADVICE =
  "send fewer orders per generator shard (a lower RUN_SHARD_RATE, so the run fans out over more shards), ask for a lower rate, or run on a quieter machine";
