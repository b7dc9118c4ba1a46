/**
 * A latency histogram with bounded memory and bounded relative error, in the
 * manner of DDSketch: a value v (in ms) falls in bucket ceil(log_γ v), with
 * γ = (1 + α) / (1 - α), so every percentile read back is within α of a value
 * that was recorded. With α = 1 %, the whole range from 1 µs to 3 hours fits
 * in about 1,200 buckets, and only the buckets that were hit are stored.
 * Histograms of the same run add bucket by bucket, which is how the shards of
 * a run merge into one summary and how an interval is the difference of two
 * cumulative ones.
 */
import { z } from "zod/v4";

export const RELATIVE_ERROR = 0.01;
const GAMMA = (1 + RELATIVE_ERROR) / (1 - RELATIVE_ERROR);
const LOG_GAMMA = Math.log(GAMMA);
/** Values below a microsecond are counted as zero. */
const SMALLEST_MS = 0.001;

/** Stored as bucket -> count for the buckets that were hit, plus the exact largest value. */
export const HistogramSchema = z.object({
  buckets: z.record(z.string().regex(/^-?\d+$/), z.number().int().positive()),
  zeros: z.number().int().nonnegative(),
  count: z.number().int().nonnegative(),
  max_ms: z.number().nonnegative(),
});
export type HistogramData = z.infer<typeof HistogramSchema>;

export const PERCENTILES = [50, 90, 95, 99, 99.9] as const;

/** What a summary says of one histogram. */
export const LatencyFiguresSchema = z.object({
  count: z.number().int(),
  p50_ms: z.number(),
  p90_ms: z.number(),
  p95_ms: z.number(),
  p99_ms: z.number(),
  p999_ms: z.number().describe("p99.9"),
  max_ms: z.number(),
});
export type LatencyFigures = z.infer<typeof LatencyFiguresSchema>;

function bucketOf(ms: number): number {
  return Math.ceil(Math.log(ms) / LOG_GAMMA);
}

/** The value a bucket stands for: within RELATIVE_ERROR of everything in it. */
function bucketValue(bucket: number): number {
  return (2 * GAMMA ** bucket) / (GAMMA + 1);
}

/** The bounds of a bucket, for an export a reader can re-bin. */
export function bucketBounds(bucket: number): { lower_ms: number; upper_ms: number } {
  return { lower_ms: GAMMA ** (bucket - 1), upper_ms: GAMMA ** bucket };
}

const round2 = (n: number) => Math.round(n * 100) / 100;

export class Histogram {
  private readonly counts = new Map<number, number>();
  private zeros = 0;
  private total = 0;
  private largest = 0;

  static from(data: HistogramData): Histogram {
    const histogram = new Histogram();
    for (const [bucket, count] of Object.entries(data.buckets)) histogram.counts.set(Number(bucket), count);
    histogram.zeros = data.zeros;
    histogram.total = data.count;
    histogram.largest = data.max_ms;
    return histogram;
  }

  get count(): number {
    return this.total;
  }

  record(ms: number): void {
    const value = Number.isFinite(ms) ? Math.max(0, ms) : 0;
    this.total++;
    if (value > this.largest) this.largest = value;
    if (value < SMALLEST_MS) {
      this.zeros++;
      return;
    }
    const bucket = bucketOf(value);
    this.counts.set(bucket, (this.counts.get(bucket) ?? 0) + 1);
  }

  /** Adds another histogram's counts into this one. */
  add(other: Histogram): this {
    for (const [bucket, count] of other.counts) this.counts.set(bucket, (this.counts.get(bucket) ?? 0) + count);
    this.zeros += other.zeros;
    this.total += other.total;
    this.largest = Math.max(this.largest, other.largest);
    return this;
  }

  /**
   * What was recorded since `earlier`, a previous state of the same
   * cumulative histogram. The max is this one's, which may be older.
   */
  since(earlier: Histogram): Histogram {
    const delta = new Histogram();
    for (const [bucket, count] of this.counts) {
      const left = count - (earlier.counts.get(bucket) ?? 0);
      if (left > 0) delta.counts.set(bucket, left);
    }
    delta.zeros = Math.max(0, this.zeros - earlier.zeros);
    delta.total = Math.max(0, this.total - earlier.total);
    let top = 0;
    for (const bucket of delta.counts.keys()) top = Math.max(top, bucketValue(bucket));
    delta.largest = Math.min(this.largest, top);
    return delta;
  }

  /** The p-th percentile (0..100), within RELATIVE_ERROR; 0 when nothing was recorded. */
  percentile(p: number): number {
    if (this.total === 0) return 0;
    const rank = Math.max(1, Math.ceil((p / 100) * this.total));
    let seen = this.zeros;
    if (seen >= rank) return 0;
    for (const bucket of [...this.counts.keys()].sort((a, b) => a - b)) {
      seen += this.counts.get(bucket) ?? 0;
      if (seen >= rank) return round2(Math.min(bucketValue(bucket), this.largest));
    }
    return round2(this.largest);
  }

  figures(): LatencyFigures {
    return {
      count: this.total,
      p50_ms: this.percentile(50),
      p90_ms: this.percentile(90),
      p95_ms: this.percentile(95),
      p99_ms: this.percentile(99),
      p999_ms: this.percentile(99.9),
      max_ms: round2(this.largest),
    };
  }

  toJSON(): HistogramData {
    return {
      buckets: Object.fromEntries(
        [...this.counts.entries()].sort(([a], [b]) => a - b).map(([bucket, count]) => [String(bucket), count]),
      ),
      zeros: this.zeros,
      count: this.total,
      max_ms: this.largest,
    };
  }
}
