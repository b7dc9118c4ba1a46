import type { RejectionReason } from "../orders/rejections";
import { describeFailure, problemsOf } from "../synth/send-batch";
import { drillFinding } from "./drill";
import { answersWaited, generatorHealth } from "./generator-health";
import { Histogram } from "./histogram";
import type { RunMeasures } from "./metrics";
import { ArrivalSchedule } from "./plan";
import { type Figures, FiguresSchema, MAX_FINDINGS, MAX_RUN_REASONS, type RunPlan } from "./run-schemas";
import { scheduledLatency } from "./scheduled-latency";

/**
 * Who held back an order that could not leave in time: the target (every slot taken while it answered slower than the
 * fan-out was sized for), the fan-out (every slot taken by a target within that sizing: the platform's connections per
 * invocation, the generator's side), or the generator (a slot was free, or its isolate was busy).
 */
export type DropCause = "target" | "fan-out" | "generator";

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
  private readonly delay: Histogram;
  private readonly loopLag: Histogram;
  private readonly serviceUnwaited: Histogram;
  private readonly data: Omit<Figures, HistogramName>;

  constructor(figures: Figures = emptyFigures()) {
    // Parsed, so a state stored before a field existed reads with its default.
    const { latency, service, lateness, delay, loop_lag, service_unwaited, ...rest } = FiguresSchema.parse(figures);
    this.latency = Histogram.from(latency);
    this.service = Histogram.from(service);
    this.lateness = Histogram.from(lateness);
    this.delay = Histogram.from(delay);
    this.loopLag = Histogram.from(loop_lag);
    this.serviceUnwaited = Histogram.from(service_unwaited);
    this.data = structuredClone(rest);
  }

  /** The generator's own timer fired `lagMs` late: its event loop was that far behind. */
  woke(lagMs: number): void {
    this.loopLag.record(lagMs);
  }

  /** An order left after the schedule's last instant. */
  sentAfterSchedule(): void {
    this.data.sent_after_schedule++;
  }

  /** An order was handed on to the target; `inFlight` counts it. */
  launched(inFlight: number): void {
    this.data.launched++;
    if (inFlight > this.data.max_in_flight) this.data.max_in_flight = inFlight;
  }

  /**
   * It reached fetch `lateMs` after its scheduled time. When a slot was free
   * all along (`generatorsOwn`), that wait was the generator's own delay;
   * when the target held it (every slot taken), none of it was. Every order
   * sent counts, so the generator's p99 delay is per order, not per launch
   * it happened to make.
   */
  handedToFetch(lateMs: number, generatorsOwn: boolean): void {
    this.lateness.record(lateMs);
    this.delay.record(generatorsOwn ? lateMs : 0);
  }

  /** An order could not leave in time; it had waited `waitedMs`, a lower bound of its latency. */
  dropped(waitedMs: number, cause: DropCause): void {
    this.data.dropped++;
    this.data.censored++;
    this.latency.record(waitedMs);
    if (cause !== "target") {
      this.data.dropped_generator++;
      if (cause === "fan-out") this.data.dropped_fanout++;
      this.delay.record(waitedMs);
    }
  }

  failed(): void {
    this.data.errors++;
  }

  paused(ms: number): void {
    this.data.paused_ms += ms;
  }

  /**
   * An answer, timed from the scheduled moment and from the moment the order left; `waited` when the generator's busy
   * event loop took it late, so its service time is partly the generator's.
   */
  answered(answer: {
    status: number;
    body: unknown;
    latencyMs: number;
    serviceMs: number;
    index: number;
    expect: RejectionReason | null;
    waited?: boolean;
  }): void {
    const data = this.data;
    data.answered++;
    this.latency.record(answer.latencyMs);
    this.service.record(answer.serviceMs);
    if (answer.waited) data.answers_waited++;
    else this.serviceUnwaited.record(answer.serviceMs);
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
      delay: this.delay.toJSON(),
      loop_lag: this.loopLag.toJSON(),
      service_unwaited: this.serviceUnwaited.toJSON(),
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
    dropped_generator: 0,
    dropped_fanout: 0,
    answers_waited: 0,
    sent_after_schedule: 0,
    censored: 0,
    status_counts: {},
    rejection_reasons: [],
    drill: {},
    findings: [],
    latency: none,
    service: none,
    lateness: none,
    delay: none,
    loop_lag: none,
    service_unwaited: none,
    max_in_flight: 0,
    paused_ms: 0,
  };
}

const COUNTS = [
  "launched",
  "answered",
  "accepted",
  "rejected",
  "errors",
  "dropped",
  "dropped_generator",
  "dropped_fanout",
  "answers_waited",
  "sent_after_schedule",
  "censored",
  "paused_ms",
] as const;
const HISTOGRAMS = ["latency", "service", "lateness", "delay", "loop_lag", "service_unwaited"] as const;
type HistogramName = (typeof HISTOGRAMS)[number];

/** The shards' figures as one run's: counts and histograms add, lists keep their first entries. */
export function mergeFigures(stored: readonly Figures[]): Figures {
  const total = emptyFigures();
  const histograms = Object.fromEntries(HISTOGRAMS.map((key) => [key, new Histogram()])) as Record<
    HistogramName,
    Histogram
  >;
  // A shard that started before a field existed reports without it.
  for (const part of stored.map((figures) => FiguresSchema.parse(figures))) {
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
    for (const key of HISTOGRAMS) histograms[key].add(Histogram.from(part[key]));
  }
  for (const key of HISTOGRAMS) total[key] = histograms[key].toJSON();
  return total;
}

/**
 * The plan's rate over the window of its first `orders` scheduled instants
 * (first to last): what a run that sent all of them on time achieved.
 */
export function plannedWindowRate(plan: Pick<RunPlan, "start_rate" | "stages">, orders: number): number {
  if (orders < 2) return 0;
  const schedule = new ArrivalSchedule(plan.start_rate, plan.stages);
  const window = schedule.dueAt(orders - 1) - schedule.dueAt(0);
  return window <= 0 ? 0 : (orders - 1) / window;
}

/**
 * The figures `metrics.ts` judges a run by. The achieved rate is over the
 * schedule's own window, from its first instant to the latest that has come:
 * the orders actually sent within it (none sent late after the schedule's
 * end), over its length; start-up, drain and tick boundaries do not dilute it.
 */
export function measuresOf(figures: Figures, plan: Pick<RunPlan, "start_rate" | "stages">): RunMeasures {
  const serverErrors = Object.entries(figures.status_counts).reduce(
    (sum, [status, count]) => (Number(status) >= 500 ? sum + count : sum),
    0,
  );
  const come = figures.launched + figures.dropped;
  return {
    latency: scheduledLatency(Histogram.from(figures.latency), figures.censored),
    service: Histogram.from(figures.service).figures(),
    service_unwaited: Histogram.from(figures.service_unwaited).figures(),
    waited: answersWaited(figures),
    lateness: Histogram.from(figures.lateness).figures(),
    generator: generatorHealth(figures),
    answered: figures.answered,
    rejected: figures.rejected,
    server_errors: serverErrors,
    errors: figures.errors,
    dropped: figures.dropped,
    launched: figures.launched,
    achieved_rate: achievedRate(figures, plan, come),
  };
}

/** Orders sent within the window of the first `come` scheduled instants, per second of that window. */
function achievedRate(figures: Figures, plan: Pick<RunPlan, "start_rate" | "stages">, come: number): number {
  if (come === 0) return 0;
  const schedule = new ArrivalSchedule(plan.start_rate, plan.stages);
  // The window's n instants span n - 1 spacings; one more spacing is the share of time the last of them stands for.
  const window = come < 2 ? 0 : ((schedule.dueAt(come - 1) - schedule.dueAt(0)) * come) / (come - 1);
  if (window <= 0) return 0;
  const sent = Math.max(0, figures.launched - figures.sent_after_schedule);
  return Math.round((sent / window) * 10) / 10;
}
