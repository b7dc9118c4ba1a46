/**
 * A stored run as a tool answers it: the run-wide percentiles, what limited
 * it, and the verdict, all read off the figures at the latest tick.
 */
import { measuresOf, plannedWindowRate } from "./figures";
import type { RunMeasures } from "./metrics";
import { ArrivalSchedule } from "./plan";
import type { RunRecord } from "./record";
import type { RunSummary } from "./run-schemas";
import { generatorSentence, verdictOf } from "./verdict";

/** An order that left later than this after its instant counts as late in the limits' wording. */
const LATE_MS = 50;

const round1 = (n: number) => Math.round(n * 10) / 10;

export function recordMeasures(record: RunRecord): RunMeasures {
  return measuresOf(record.figures, record.plan);
}

/**
 * What held the run back, in words an agent can pass on: each drop is the target's or the generator's, by what held it.
 */
function limitsOf(record: RunRecord, measures: RunMeasures): string[] {
  const { figures, plan } = record;
  const limits: string[] = [];
  const scheduled = Math.max(1, figures.launched + figures.dropped);
  const byTarget = figures.dropped - figures.dropped_generator;
  if (byTarget > 0 && measures.generator.limited) {
    limits.push(
      `${byTarget} orders could not leave while every request slot of their shard was taken; the generator itself was the limit meanwhile, so that wait may be its own as much as the target's`,
    );
  } else if (byTarget > 0) {
    limits.push(
      `the target was the limit: it slowed past the ${plan.expected_service_ms} ms per answer this run's fan-out was sized for (RUN_EXPECTED_SERVICE_MS) until ${plan.max_in_flight} requests per shard were in flight (MAX_IN_FLIGHT), so ${byTarget} orders (${round1((byTarget / scheduled) * 100)} %) could not leave within ${plan.max_lateness_ms} ms of their scheduled time and were dropped`,
    );
  }
  if (measures.generator.limited) limits.push(generatorSentence(measures.generator));
  const bounds = measures.latency.lower_bounds;
  if (bounds.length > 0) {
    limits.push(
      `latency ${bounds.join(", ")} ${bounds.length === 1 ? "is a lower bound" : "are lower bounds"}: ${round1((measures.latency.censored / Math.max(1, measures.latency.count)) * 100)} % of scheduled orders were dropped and count at how long they had waited when dropped, so the true ${bounds.length === 1 ? "figure is" : "figures are"} at least ${bounds.length === 1 ? "that" : "those"}; a threshold that they stay below cannot pass`,
    );
  }
  if (measures.lateness.p99_ms > LATE_MS) {
    limits.push(
      `orders left late: the 99th percentile was handed to fetch ${measures.lateness.p99_ms} ms after its scheduled time (the latest ${measures.lateness.max_ms} ms); latency is timed from the scheduled time, so it includes this wait`,
    );
  }
  return limits;
}

export function summaryOf(record: RunRecord, runUrl: string, nowMs: number): RunSummary {
  const measures = recordMeasures(record);
  const { figures, plan } = record;
  const running = record.status === "running";
  const elapsed = (Math.max(nowMs, record.last_tick_ms) - Date.parse(record.started_at) - figures.paused_ms) / 1000;
  return {
    run_id: record.run_id,
    status: record.status,
    operator: record.operator,
    started_at: record.started_at,
    finished_at: record.finished_at,
    plan,
    sent: figures.answered,
    accepted: figures.accepted,
    rejected: figures.rejected,
    errors: figures.errors,
    dropped: figures.dropped,
    status_counts: figures.status_counts,
    current_rate: running ? record.current_rate : 0,
    planned_rate: round1(
      running
        ? new ArrivalSchedule(plan.start_rate, plan.stages).rateAt(elapsed)
        : plannedWindowRate(plan, plan.total_orders),
    ),
    achieved_rate: measures.achieved_rate,
    in_flight: running ? record.in_flight : 0,
    latency: measures.latency,
    service: measures.service,
    lateness: measures.lateness,
    generator: measures.generator,
    rejection_reasons: figures.rejection_reasons,
    drill: figures.drill,
    findings: figures.findings,
    limits: limitsOf(record, measures),
    verdict: verdictOf(record.status, plan, figures, measures),
    paused: record.paused,
    problem: record.problem,
    run_url: runUrl,
    ...((plan.locations?.length ?? 0) > 0 ? { locations: record.locations } : {}),
  };
}
