import { Histogram } from "./histogram";
import type { Figures, RunInterval } from "./run-schemas";

/**
 * One interval of a run: what changed between two readings of its
 * cumulative figures. A shard that restarted from its last checkpoint reads
 * a little lower than it did live; those differences count as 0, and the
 * re-sent orders are counted again when they are answered.
 */
export function intervalBetween(
  before: Figures,
  after: Figures,
  at: { atSecond: number; seconds: number; plannedRate: number; inFlight: number },
): RunInterval {
  const delta = (key: "answered" | "accepted" | "rejected" | "errors" | "dropped" | "dropped_generator") =>
    Math.max(0, after[key] - before[key]);
  const latency = Histogram.from(after.latency).since(Histogram.from(before.latency));
  const service = Histogram.from(after.service).since(Histogram.from(before.service));
  const delay = Histogram.from(after.delay).since(Histogram.from(before.delay));
  return {
    at_second: Math.round(at.atSecond * 10) / 10,
    seconds: Math.round(at.seconds * 1000) / 1000,
    planned_rate: Math.round(at.plannedRate * 10) / 10,
    sent: delta("answered"),
    accepted: delta("accepted"),
    rejected: delta("rejected"),
    errors: delta("errors"),
    dropped: delta("dropped"),
    dropped_generator: delta("dropped_generator"),
    generator_delay_ms: delay.percentile(99),
    in_flight: at.inFlight,
    latency_p50_ms: latency.percentile(50),
    latency_p95_ms: latency.percentile(95),
    latency_p99_ms: latency.percentile(99),
    service_p99_ms: service.percentile(99),
  };
}

/**
 * Whether anything happened between the two readings; a paused or quiet stretch stores no interval, so it shows as a
 * gap.
 */
export function anythingHappened(before: Figures, after: Figures): boolean {
  return (
    after.launched !== before.launched ||
    after.answered !== before.answered ||
    after.errors !== before.errors ||
    after.dropped !== before.dropped
  );
}
