import type { RejectionReason } from "../orders/rejections";
import { describeFailure, problemsOf } from "../synth/send-batch";
import { drillFinding } from "./drill";
import { Histogram } from "./histogram";
import type { RunMeasures } from "./metrics";
import { type Figures, MAX_FINDINGS, MAX_RUN_REASONS } from "./schemas";

/**
 * A shard's running figures: counts, the first rejection reasons and drill
 * findings, and three histograms (latency from the scheduled time, service
 * time, lateness), in constant memory however long the run. Figures of
 * several shards add up to the run's; two snapshots of the same figures
 * subtract to an interval.
 */
export class RunFigures {
  private readonly latency: Histogram;
  private readonly service: Histogram;
  private readonly lateness: Histogram;
  private readonly data: Omit<Figures, "latency" | "service" | "lateness">;

  constructor(figures: Figures = emptyFigures()) {
    const { latency, service, lateness, ...rest } = figures;
    this.latency = Histogram.from(latency);
    this.service = Histogram.from(service);
    this.lateness = Histogram.from(lateness);
    this.data = structuredClone(rest);
  }

  /** An order left `lateMs` after its scheduled time. */
  launched(lateMs: number, inFlight: number): void {
    this.data.launched++;
    this.lateness.record(lateMs);
    if (inFlight > this.data.max_in_flight) this.data.max_in_flight = inFlight;
  }

  dropped(): void {
    this.data.dropped++;
  }

  failed(): void {
    this.data.errors++;
  }

  paused(ms: number): void {
    this.data.paused_ms += ms;
  }

  /** An answer, timed from the scheduled moment and from the moment the order left. */
  answered(answer: {
    status: number;
    body: unknown;
    latencyMs: number;
    serviceMs: number;
    index: number;
    expect: RejectionReason | null;
  }): void {
    const data = this.data;
    data.answered++;
    this.latency.record(answer.latencyMs);
    this.service.record(answer.serviceMs);
    const key = String(answer.status);
    data.status_counts[key] = (data.status_counts[key] ?? 0) + 1;
    const accepted = answer.status >= 200 && answer.status < 300;
    if (accepted) {
      data.accepted++;
    } else {
      data.rejected++;
      const reason = describeFailure(answer.status, answer.body);
      if (data.rejection_reasons.length < MAX_RUN_REASONS && !data.rejection_reasons.includes(reason))
        data.rejection_reasons.push(reason);
    }
    if (answer.expect === null) return;
    const tally = data.drill[answer.expect] ?? { sent: 0, as_expected: 0, mismatched: 0 };
    data.drill[answer.expect] = tally;
    tally.sent++;
    const finding = drillFinding(answer.expect, answer.index, answer.status, problemsOf(answer.body));
    if (finding === null) {
      tally.as_expected++;
    } else {
      tally.mismatched++;
      if (data.findings.length < MAX_FINDINGS) data.findings.push(finding);
    }
  }

  get answeredCount(): number {
    return this.data.answered;
  }

  get failedCount(): number {
    return this.data.errors;
  }

  toJSON(): Figures {
    return {
      ...structuredClone(this.data),
      latency: this.latency.toJSON(),
      service: this.service.toJSON(),
      lateness: this.lateness.toJSON(),
    };
  }
}

export function emptyFigures(): Figures {
  const none = new Histogram().toJSON();
  return {
    launched: 0,
    answered: 0,
    accepted: 0,
    rejected: 0,
    errors: 0,
    dropped: 0,
    status_counts: {},
    rejection_reasons: [],
    drill: {},
    findings: [],
    latency: none,
    service: none,
    lateness: none,
    max_in_flight: 0,
    paused_ms: 0,
  };
}

const COUNTS = ["launched", "answered", "accepted", "rejected", "errors", "dropped", "paused_ms"] as const;

/** The shards' figures as one run's: counts and histograms add, lists keep their first entries. */
export function mergeFigures(parts: readonly Figures[]): Figures {
  const total = emptyFigures();
  const histograms = { latency: new Histogram(), service: new Histogram(), lateness: new Histogram() };
  for (const part of parts) {
    for (const key of COUNTS) total[key] += part[key];
    for (const [status, count] of Object.entries(part.status_counts))
      total.status_counts[status] = (total.status_counts[status] ?? 0) + count;
    for (const reason of part.rejection_reasons) {
      if (total.rejection_reasons.length < MAX_RUN_REASONS && !total.rejection_reasons.includes(reason))
        total.rejection_reasons.push(reason);
    }
    for (const [reason, tally] of Object.entries(part.drill) as [
      RejectionReason,
      NonNullable<Figures["drill"][RejectionReason]>,
    ][]) {
      const sum = total.drill[reason] ?? { sent: 0, as_expected: 0, mismatched: 0 };
      total.drill[reason] = sum;
      sum.sent += tally.sent;
      sum.as_expected += tally.as_expected;
      sum.mismatched += tally.mismatched;
    }
    total.findings.push(...part.findings.slice(0, MAX_FINDINGS - total.findings.length));
    total.max_in_flight = Math.max(total.max_in_flight, part.max_in_flight);
    for (const key of ["latency", "service", "lateness"] as const) histograms[key].add(Histogram.from(part[key]));
  }
  return {
    ...total,
    latency: histograms.latency.toJSON(),
    service: histograms.service.toJSON(),
    lateness: histograms.lateness.toJSON(),
  };
}

/** The figures `metrics.ts` judges a run by; `activeSeconds` is the time it was sending. */
export function measuresOf(figures: Figures, activeSeconds: number): RunMeasures {
  const serverErrors = Object.entries(figures.status_counts).reduce(
    (sum, [status, count]) => (Number(status) >= 500 ? sum + count : sum),
    0,
  );
  return {
    latency: Histogram.from(figures.latency).figures(),
    service: Histogram.from(figures.service).figures(),
    lateness: Histogram.from(figures.lateness).figures(),
    answered: figures.answered,
    rejected: figures.rejected,
    server_errors: serverErrors,
    errors: figures.errors,
    dropped: figures.dropped,
    launched: figures.launched,
    active_seconds: activeSeconds,
  };
}
