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

/**
 * An answer the generator's event loop took more than this late (its own timer was overdue by as much) waited on a
 * busy generator: its service time is partly the generator's.
 */
export const ANSWER_WAIT_BOUND_MS = 10;
/** Past this share of answers waited, the service times describe the generator's isolate as much as the target. */
export const WAITED_SHARE_BOUND = 0.01;

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
  fan_out_dropped: z
    .number()
    .int()
    .describe(
      "Of dropped, those held back while every connection of a shard was taken by a target answering within the service time the fan-out was sized for (RUN_EXPECTED_SERVICE_MS): the fan-out's limit, 6 connections per invocation on Cloudflare, not the target's",
    ),
  loop_lag_p99_ms: z
    .number()
    .describe("99th percentile of how late the generator's own timer fired: its isolate's event-loop lag"),
  answers_waited: z
    .number()
    .int()
    .describe(
      `Answers the busy generator took more than ${ANSWER_WAIT_BOUND_MS} ms late; over ${WAITED_SHARE_BOUND * 100} % of answers, service times are not the target's alone`,
    ),
  bound_ms: z.number().describe("The p99 delay above which the generator counts as the limit"),
});
export type GeneratorHealth = z.infer<typeof GeneratorHealthSchema>;

/** Whether the generator's busy isolate made answers wait: then no service time is the target's alone. */
export function answersWaited(figures: { answered: number; answers_waited: number }): boolean {
  return figures.answers_waited > figures.answered * WAITED_SHARE_BOUND;
}

export function generatorHealth(figures: {
  answered: number;
  answers_waited: number;
  dropped_generator: number;
  dropped_fanout: number;
  delay: HistogramData;
  loop_lag: HistogramData;
}): GeneratorHealth {
  const delay = Histogram.from(figures.delay).figures();
  const lag = Histogram.from(figures.loop_lag).figures();
  return {
    limited:
      figures.dropped_generator > 0 ||
      delay.p99_ms > GENERATOR_DELAY_BOUND_MS ||
      lag.p99_ms > GENERATOR_DELAY_BOUND_MS ||
      answersWaited(figures),
    dropped: figures.dropped_generator,
    delay_p99_ms: delay.p99_ms,
    delay_max_ms: delay.max_ms,
    bound_ms: GENERATOR_DELAY_BOUND_MS,
    fan_out_dropped: figures.dropped_fanout,
    loop_lag_p99_ms: lag.p99_ms,
    answers_waited: figures.answers_waited,
  };
}

/** What to change when the fan-out, not the target, held orders back. */
export const FAN_OUT_ADVICE =
  "raise RUN_EXPECTED_SERVICE_MS so the run fans out over more shards (each shard's invocation may have 6 requests waiting for headers on Cloudflare), raise MAX_RUN_SHARDS if that refuses the plan, or ask for a lower rate";

/** What to change, in the words a limits line and an inconclusive verdict both use. */
export const GENERATOR_ADVICE =
  "send fewer orders per generator shard (a lower RUN_SHARD_RATE, so the run fans out over more shards), ask for a lower rate, or run on a quieter machine";
