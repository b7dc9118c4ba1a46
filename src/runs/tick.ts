import { mergeFigures } from "./figures";
import { Histogram } from "./histogram";
import { anythingHappened, intervalBetween } from "./interval";
import type { LocationFigures } from "./locations";
import { ArrivalSchedule } from "./plan";
import type { RunRecord } from "./record";
import type { RunInterval, RunPlan, RunStatus } from "./run-schemas";
import { type ShardProgress, shardLocation } from "./shard-state";
import { recordMeasures } from "./summary";
import { abortingThreshold } from "./verdict";

/**
 * What one tick makes of the shards' progress: the run's record with their
 * figures added up, and the interval since the previous tick (null when
 * nothing happened in it, so a quiet stretch shows as a gap).
 */
export function tickedRecord(
  record: RunRecord,
  parts: readonly ShardProgress[],
  now: number,
): { next: RunRecord; interval: RunInterval | null } {
  const figures = mergeFigures(parts.map((part) => part.state.figures));
  const elapsed = (now - Date.parse(record.started_at) - figures.paused_ms) / 1000;
  const inFlight = parts.reduce((sum, part) => sum + part.in_flight, 0);
  let interval: RunInterval | null = null;
  const seconds = Math.max(0.001, (now - record.last_tick_ms) / 1000);
  if (anythingHappened(record.figures, figures)) {
    const plannedRate = new ArrivalSchedule(record.plan.start_rate, record.plan.stages).rateAt(elapsed);
    interval = intervalBetween(record.figures, figures, {
      atSecond: (now - Date.parse(record.started_at)) / 1000,
      seconds,
      plannedRate,
      inFlight,
    });
  }
  const next: RunRecord = {
    ...record,
    figures,
    shards: parts.map(({ state }) => ({
      status: state.status,
      problem: state.problem,
      dropped: state.figures.dropped,
      max_in_flight: state.figures.max_in_flight,
    })),
    paused: parts.find((part) => part.state.cursor.paused)?.state.cursor.paused ?? null,
    in_flight: inFlight,
    locations: locationFigures(record.plan, parts),
    current_rate: Math.round((Math.max(0, figures.answered - record.figures.answered) / seconds) * 10) / 10,
    last_tick_ms: now,
    missed_ticks: 0,
  };
  return { next, interval };
}

/** Whether the run ends at this tick, and why; null while it goes on. */
export function endingAt(next: RunRecord, now: number): { status: RunStatus; problem: string | null } | null {
  const count = next.shards.length;
  const named = (index: number, problem: string | null) =>
    count === 1 ? problem : `generator shard ${index + 1} of ${count}: ${problem ?? "ended"}`;
  for (const status of ["failed", "interrupted"] as const) {
    const index = next.shards.findIndex((shard) => shard.status === status);
    if (index >= 0) return { status, problem: named(index, next.shards[index]?.problem ?? null) };
  }
  const elapsed = (now - Date.parse(next.started_at) - next.figures.paused_ms) / 1000;
  const aborted = abortingThreshold(next.plan, recordMeasures(next), elapsed);
  if (aborted) return { status: "aborted", problem: aborted };
  if (next.shards.every((shard) => shard.status === "completed")) return { status: "completed", problem: null };
  return null;
}

/** Each load zone's shards added up, when the run names locations: their counts add up to the run's. */
function locationFigures(plan: RunPlan, parts: readonly ShardProgress[]): LocationFigures[] {
  const zones = [...new Set(plan.locations ?? [])];
  return zones.map((location) => {
    const own = parts.filter((_, index) => shardLocation(plan, index) === location);
    const figures = mergeFigures(own.map((part) => part.state.figures));
    const latency = Histogram.from(figures.latency);
    return {
      location,
      shards: own.length,
      sent: figures.answered,
      accepted: figures.accepted,
      rejected: figures.rejected,
      errors: figures.errors,
      dropped: figures.dropped,
      latency_p50_ms: latency.percentile(50),
      latency_p99_ms: latency.percentile(99),
      service_p99_ms: Histogram.from(figures.service).percentile(99),
    };
  });
}
