/**
 * A run's whole result for whoever takes it elsewhere: the summary with its
 * run-wide histograms (so any percentile can be read back, or runs merged),
 * and every interval as CSV.
 */
import { z } from "zod/v4";
import { bucketBounds, type HistogramData, RELATIVE_ERROR } from "./histogram";
import type { RunRecord } from "./record";
import { type RunInterval, RunIntervalSchema, type RunSummary, RunSummarySchema } from "./run-schemas";

const ExportedHistogramSchema = z.object({
  relative_error: z.number().describe("Every value in a bucket is within this share of the bucket's bounds"),
  count: z.number().int(),
  zeros: z.number().int().describe("Values under 1 µs"),
  max_ms: z.number(),
  buckets: z.array(z.object({ lower_ms: z.number(), upper_ms: z.number(), count: z.number().int() })),
});

export const RunExportSchema = RunSummarySchema.extend({
  histograms: z.object({
    latency: ExportedHistogramSchema.describe(
      "From each order's scheduled send time to its answer, over every scheduled order: a dropped one at its wait when dropped (latency.censored of them)",
    ),
    service: ExportedHistogramSchema.describe("From the moment each order was handed to fetch to its answer"),
    lateness: ExportedHistogramSchema.describe("How late each order was handed to fetch after its scheduled time"),
    delay: ExportedHistogramSchema.describe(
      "The generator's own delay per order sent (0 for one the target held back), and its own drops at their wait",
    ),
  }),
});
export type RunExport = z.infer<typeof RunExportSchema>;

const round4 = (n: number) => Math.round(n * 10_000) / 10_000;

function exported(histogram: HistogramData): z.infer<typeof ExportedHistogramSchema> {
  return {
    relative_error: RELATIVE_ERROR,
    count: histogram.count,
    zeros: histogram.zeros,
    max_ms: histogram.max_ms,
    buckets: Object.entries(histogram.buckets)
      .map(([bucket, count]) => ({ ...bucketBounds(Number(bucket)), count }))
      .sort((a, b) => a.lower_ms - b.lower_ms)
      .map(({ lower_ms, upper_ms, count }) => ({ lower_ms: round4(lower_ms), upper_ms: round4(upper_ms), count })),
  };
}

export function exportOf(summary: RunSummary, record: RunRecord): RunExport {
  const { latency, service, lateness, delay } = record.figures;
  return {
    ...summary,
    histograms: {
      latency: exported(latency),
      service: exported(service),
      lateness: exported(lateness),
      delay: exported(delay),
    },
  };
}

/** Every interval field, so a new one reaches the CSV without a second list; each is a number, so no cell needs quoting. */
const CSV_COLUMNS = Object.keys(RunIntervalSchema.shape) as (keyof RunInterval)[];

export const INTERVALS_CSV_HEADER = `${CSV_COLUMNS.join(",")}\r\n`;

export function intervalCsvLine(interval: RunInterval): string {
  return `${CSV_COLUMNS.map((column) => String(interval[column])).join(",")}\r\n`;
}
