/**
 * A stored run as a tool answers it: the run-wide percentiles, what limited
 * it, and the verdict, all read off the figures at the latest tick.
 */
import { measuresOf } from "./figures";
import type { RunMeasures } from "./metrics";
import { ArrivalSchedule } from "./plan";
import type { RunRecord } from "./record";
import type { RunSummary } from "./schemas";
import { verdictOf } from "./verdict";

/** An order that left later than this after its instant counts as late in the limits' wording. */
const LATE_MS = 50;

/** Seconds the run was sending up to its latest tick, pauses left out: the figures are as of that tick. */
export function activeSeconds(record: RunRecord): number {
  return Math.max(0, (record.last_tick_ms - Date.parse(record.started_at) - record.figures.paused_ms) / 1000);
}

export function recordMeasures(record: RunRecord): RunMeasures {
  return measuresOf(record.figures, activeSeconds(record));
}

/** What held the run back, in words an agent can pass on. */
function limitsOf(record: RunRecord, measures: RunMeasures): string[] {
  const { figures, plan } = record;
  const limits: string[] = [];
  const dropping = record.shards.filter((shard) => shard.dropped > 0);
  const starved = dropping.filter((shard) => shard.max_in_flight < plan.max_in_flight);
  const share = Math.round((figures.dropped / Math.max(1, figures.launched + figures.dropped)) * 1000) / 10;
  if (figures.dropped > 0 && (starved.length < dropping.length || dropping.length === 0)) {
    limits.push(
      `the target was the limit: it slowed until ${plan.max_in_flight} requests per shard were in flight (MAX_IN_FLIGHT), so ${figures.dropped} orders (${share} %) could not leave within ${plan.max_lateness_ms} ms of their scheduled time and were dropped`,
    );
  }
  if (starved.length > 0) {
    const which = record.shards.length === 1 ? "" : ` (${starved.length} of ${record.shards.length} generator shards)`;
    const dropped = starved.reduce((sum, shard) => sum + shard.dropped, 0);
    const most = Math.max(...starved.map((shard) => shard.max_in_flight));
    limits.push(
      `the generator, not the target, was the limit${which}: ${dropped} orders could not leave within ${plan.max_lateness_ms} ms of their scheduled time although at most ${most} of ${plan.max_in_flight} requests were in flight; ask for a lower rate, or let the run fan out over more generator objects (RUN_SHARD_RATE)`,
    );
  }
  if (measures.lateness.p99_ms > LATE_MS) {
    limits.push(
      `orders left late: the 99th percentile left ${measures.lateness.p99_ms} ms after its scheduled time (the latest ${measures.lateness.max_ms} ms); latency is timed from the scheduled time, so it includes this wait`,
    );
  }
  return limits;
}

export function summaryOf(record: RunRecord, runUrl: string, nowMs: number): RunSummary {
  const measures = recordMeasures(record);
  const { figures } = record;
  const running = record.status === "running";
  const elapsed = (Math.max(nowMs, record.last_tick_ms) - Date.parse(record.started_at) - figures.paused_ms) / 1000;
  return {
    run_id: record.run_id,
    status: record.status,
    operator: record.operator,
    started_at: record.started_at,
    finished_at: record.finished_at,
    plan: record.plan,
    sent: figures.answered,
    accepted: figures.accepted,
    rejected: figures.rejected,
    errors: figures.errors,
    dropped: figures.dropped,
    status_counts: figures.status_counts,
    current_rate: running ? record.current_rate : 0,
    planned_rate: running
      ? Math.round(new ArrivalSchedule(record.plan.start_rate, record.plan.stages).rateAt(elapsed) * 10) / 10
      : 0,
    in_flight: running ? record.in_flight : 0,
    latency: measures.latency,
    service: measures.service,
    lateness: measures.lateness,
    rejection_reasons: figures.rejection_reasons,
    drill: figures.drill,
    findings: figures.findings,
    limits: limitsOf(record, measures),
    verdict: verdictOf(record.status, record.plan, figures, measures),
    paused: record.paused,
    problem: record.problem,
    run_url: runUrl,
  };
}
