/**
 * A traffic run as the caller asks for it, checked against the server's caps
 * and turned into a plan: a start rate and stages, linear between them (k6's
 * ramping arrival rate). The older form, one rate with an optional ramp from
 * 0, is the same plan written shorter. Every refusal says what to change.
 */
import { fail, ok, type Result } from "../core/errors";
import { RejectionReasonSchema } from "../orders/rejections";
import type { GeneratorMode } from "../synth/generators";
import type { Location } from "./locations";
import { type InvalidShare, MAX_STAGES, MAX_THRESHOLDS, type RunPlan, type Stage, type Threshold } from "./run-schemas";

export interface RunRequest {
  readonly rate_per_second?: number | undefined;
  readonly duration_seconds?: number | undefined;
  readonly ramp_seconds?: number | undefined;
  readonly start_rate?: number | undefined;
  readonly stages?: readonly Stage[] | undefined;
  readonly mode: GeneratorMode;
  readonly seed?: number | undefined;
  readonly thresholds?: readonly Threshold[] | undefined;
  readonly invalid_share?: InvalidShare | undefined;
  /** Load zones to create the shards in (Cloudflare location hints); none: wherever the platform chooses. */
  readonly locations?: readonly Location[] | undefined;
}

export interface RunCaps {
  readonly maxRate: number;
  readonly maxSeconds: number;
  readonly maxOrders: number;
  /** Orders per second one generator object is given before a run fans out over more. */
  readonly shardRate: number;
  readonly maxShards: number;
  readonly maxInFlight: number;
  readonly maxLatenessMs: number;
  /** The service time a run's fan-out is sized to hold (RUN_EXPECTED_SERVICE_MS). */
  readonly expectedServiceMs: number;
  /** Requests one shard's invocation may have waiting for headers (the platform's 6); null when the limits are off. */
  readonly connectionsPerShard: number | null;
}

/**
 * How many shards a run needs, and how many requests each keeps in flight.
 * By Little's law a target answering in S ms at R orders a second has
 * R x S / 1000 requests in flight; one shard's invocation may have at most
 * `connectionsPerShard` of them waiting for headers, so the run needs that
 * many shards at least, and RUN_SHARD_RATE may ask for more. A fan-out the
 * caps cannot give is refused.
 */
function fanOut(peak: number, caps: RunCaps): Result<{ shards: number; maxInFlight: number }> {
  const perShard =
    caps.connectionsPerShard === null ? caps.maxInFlight : Math.min(caps.maxInFlight, caps.connectionsPerShard);
  const byRate = Math.min(caps.maxShards, Math.max(1, Math.ceil(peak / caps.shardRate)));
  const needed = Math.ceil((peak * caps.expectedServiceMs) / 1000);
  const byInFlight = Math.max(1, Math.ceil(needed / perShard));
  if (byInFlight > caps.maxShards) {
    return fail(
      "bad_request",
      `that run needs ${byInFlight} generator shards, over the server's MAX_RUN_SHARDS of ${caps.maxShards}: at its peak of ${peak} orders a second, a target answering in ${caps.expectedServiceMs} ms (RUN_EXPECTED_SERVICE_MS) keeps about ${needed} requests in flight, and one shard may keep ${perShard} (MAX_IN_FLIGHT, and the ${caps.connectionsPerShard ?? "unlimited"} connections a Cloudflare invocation may have waiting for headers); ask for a lower rate, or raise MAX_RUN_SHARDS (up to 64) in the server environment`,
    );
  }
  return ok({ shards: Math.max(byRate, byInFlight), maxInFlight: perShard });
}

function rateProblem(name: string, rate: number, caps: RunCaps, positive: boolean): string | undefined {
  if (!Number.isFinite(rate) || (positive ? rate <= 0 : rate < 0))
    return `${name} must be ${positive ? "more than 0" : "0 or more"}, got ${rate}`;
  if (rate > caps.maxRate)
    return `${name} ${rate} exceeds the server's MAX_RUN_RATE of ${caps.maxRate}; ask for a lower rate or raise MAX_RUN_RATE in the server environment`;
  return undefined;
}

/** The single-rate form as stages: a ramp from 0 if asked for, then the rate held. */
function legacyStages(request: RunRequest, caps: RunCaps): Result<{ start: number; stages: Stage[] }> {
  const rate = request.rate_per_second ?? 0;
  const duration = request.duration_seconds;
  const ramp = request.ramp_seconds ?? 0;
  const problem = rateProblem("rate_per_second", rate, caps, true);
  if (problem) return fail("bad_request", problem);
  if (duration === undefined)
    return fail("bad_request", "duration_seconds is needed with rate_per_second (or give stages instead)");
  if (duration < 1) return fail("bad_request", `duration_seconds must be at least 1, got ${duration}`);
  if (duration > caps.maxSeconds) {
    return fail(
      "bad_request",
      `duration_seconds ${duration} exceeds the server's MAX_RUN_SECONDS of ${caps.maxSeconds}; run for less time or raise MAX_RUN_SECONDS in the server environment`,
    );
  }
  if (ramp < 0 || ramp > duration)
    return fail("bad_request", `ramp_seconds must be between 0 and duration_seconds (${duration}), got ${ramp}`);
  if (ramp === 0) return ok({ start: rate, stages: [{ duration_seconds: duration, rate_per_second: rate }] });
  const stages = [{ duration_seconds: ramp, rate_per_second: rate }];
  if (duration > ramp) stages.push({ duration_seconds: duration - ramp, rate_per_second: rate });
  return ok({ start: 0, stages });
}

function stagedPlan(request: RunRequest, caps: RunCaps): Result<{ start: number; stages: Stage[] }> {
  const stages = request.stages ?? [];
  if (stages.length === 0)
    return fail(
      "bad_request",
      'stages must list at least one stage, e.g. [{"duration_seconds": 60, "rate_per_second": 20}]',
    );
  if (stages.length > MAX_STAGES)
    return fail("bad_request", `a run may have at most ${MAX_STAGES} stages, got ${stages.length}`);
  const start = request.start_rate ?? 0;
  const startProblem = rateProblem("start_rate", start, caps, false);
  if (startProblem) return fail("bad_request", startProblem);
  for (const [i, stage] of stages.entries()) {
    if (!Number.isInteger(stage.duration_seconds) || stage.duration_seconds < 1) {
      return fail(
        "bad_request",
        `stages[${i}].duration_seconds must be a whole number of seconds, at least 1 (stages follow one another and cannot go back in time), got ${stage.duration_seconds}`,
      );
    }
    const problem = rateProblem(`stages[${i}].rate_per_second`, stage.rate_per_second, caps, false);
    if (problem) return fail("bad_request", problem);
  }
  const total = stages.reduce((sum, stage) => sum + stage.duration_seconds, 0);
  if (total > caps.maxSeconds) {
    return fail(
      "bad_request",
      `the stages last ${total} s in all, over the server's MAX_RUN_SECONDS of ${caps.maxSeconds}; shorten them or raise MAX_RUN_SECONDS in the server environment`,
    );
  }
  return ok({ start, stages: [...stages] });
}

function invalidShareProblem(share: InvalidShare, mode: GeneratorMode): string | undefined {
  const entries = Object.entries(share);
  if (entries.length === 0) return undefined;
  if (mode !== "seeded") return "invalid_share needs mode seeded: simple mode already makes every order invalid";
  for (const [reason, value] of entries) {
    if (!RejectionReasonSchema.safeParse(reason).success)
      return `invalid_share names an unknown reason ${JSON.stringify(reason)}; use one of ${RejectionReasonSchema.options.join(", ")}`;
    if (typeof value !== "number" || !Number.isFinite(value) || value < 0 || value > 1)
      return `invalid_share.${reason} must be a share between 0 and 1, got ${String(value)}`;
  }
  const sum = entries.reduce((total, [, value]) => total + (value ?? 0), 0);
  if (sum > 1 + 1e-9)
    return `the shares in invalid_share add up to ${Math.round(sum * 1000) / 1000}; together they can be at most 1`;
  return undefined;
}

function thresholdProblem(thresholds: readonly Threshold[], duration: number): string | undefined {
  if (thresholds.length > MAX_THRESHOLDS)
    return `a run may have at most ${MAX_THRESHOLDS} thresholds, got ${thresholds.length}`;
  for (const [i, threshold] of thresholds.entries()) {
    if (!Number.isFinite(threshold.value)) return `thresholds[${i}].value must be a number, got ${threshold.value}`;
    if (threshold.grace_seconds > duration)
      return `thresholds[${i}].grace_seconds ${threshold.grace_seconds} is longer than the run (${duration} s)`;
  }
  return undefined;
}

/** Checks a request against the server's caps, with messages in the style of the MAX_BATCH refusal. */
export function planRun(request: RunRequest, seed: number, caps: RunCaps): Result<RunPlan> {
  const legacy = request.rate_per_second !== undefined || request.ramp_seconds !== undefined;
  if (legacy && request.stages !== undefined) {
    return fail(
      "bad_request",
      "give the load either as stages or as rate_per_second with duration_seconds (and ramp_seconds), not both",
    );
  }
  if (!legacy && request.stages === undefined) {
    return fail(
      "bad_request",
      'say what load to send: rate_per_second with duration_seconds, or stages such as [{"duration_seconds": 60, "rate_per_second": 20}]',
    );
  }
  if (!legacy && request.duration_seconds !== undefined)
    return fail(
      "bad_request",
      "with stages, each stage has its own duration_seconds; leave the top-level duration_seconds out",
    );
  const shape = legacy ? legacyStages(request, caps) : stagedPlan(request, caps);
  if (!shape.ok) return shape;
  const { start, stages } = shape.value;
  const schedule = new ArrivalSchedule(start, stages);
  const total = schedule.totalOrders;
  if (total < 1)
    return fail("bad_request", "that plan sends no order at all; ask for at least one order (rate x duration >= 1)");
  if (total > caps.maxOrders) {
    return fail(
      "bad_request",
      `that run would send ${total} orders, over the server's MAX_RUN_ORDERS of ${caps.maxOrders}; lower the rate or the duration, or raise MAX_RUN_ORDERS in the server environment`,
    );
  }
  const invalidShare = request.invalid_share ?? {};
  const shareProblem = invalidShareProblem(invalidShare, request.mode);
  if (shareProblem) return fail("bad_request", shareProblem);
  const thresholds = request.thresholds ?? [];
  const problem = thresholdProblem(thresholds, schedule.durationSeconds);
  if (problem) return fail("bad_request", problem);
  const peak = Math.max(start, ...stages.map((stage) => stage.rate_per_second));
  const fan = fanOut(peak, caps);
  if (!fan.ok) return fan;
  const locations = [...new Set(request.locations ?? [])];
  // Every zone asked for gets a shard at least.
  const shards = Math.max(fan.value.shards, locations.length);
  if (shards > caps.maxShards) {
    return fail(
      "bad_request",
      `that run asks for ${locations.length} locations, each with a shard of its own, over the server's MAX_RUN_SHARDS of ${caps.maxShards}; name fewer locations or raise MAX_RUN_SHARDS in the server environment`,
    );
  }
  return ok({
    start_rate: start,
    stages,
    duration_seconds: schedule.durationSeconds,
    peak_rate: peak,
    mode: request.mode,
    seed,
    total_orders: total,
    invalid_share: invalidShare,
    thresholds: [...thresholds],
    shards,
    ...(locations.length > 0 ? { locations } : {}),
    max_in_flight: fan.value.maxInFlight,
    expected_service_ms: caps.expectedServiceMs,
    max_lateness_ms: caps.maxLatenessMs,
  });
}

/**
 * When each order of a plan is due. The rate moves linearly within a stage,
 * so the orders sent by time t are the area under the rate curve, and order
 * i is due when that area reaches i: the arrivals of an open model, spread
 * over each second instead of sent in bursts.
 */
export class ArrivalSchedule {
  /** Per stage: its start in seconds, the area (orders) before it, its rates at both ends and its length. */
  private readonly segments: { at: number; before: number; from: number; to: number; length: number }[] = [];
  readonly durationSeconds: number;
  readonly totalOrders: number;

  constructor(startRate: number, stages: readonly Stage[]) {
    let at = 0;
    let area = 0;
    let from = startRate;
    for (const stage of stages) {
      this.segments.push({ at, before: area, from, to: stage.rate_per_second, length: stage.duration_seconds });
      area += ((from + stage.rate_per_second) / 2) * stage.duration_seconds;
      at += stage.duration_seconds;
      from = stage.rate_per_second;
    }
    this.durationSeconds = at;
    this.totalOrders = Math.floor(area + 1e-9);
  }

  /** The planned rate `seconds` into the run; 0 after its end. */
  rateAt(seconds: number): number {
    const segment = this.segments.find((s) => seconds >= s.at && seconds < s.at + s.length);
    if (!segment) return 0;
    return segment.from + ((segment.to - segment.from) * (seconds - segment.at)) / segment.length;
  }

  /** Seconds into the run at which order `index` (0-based) is due. */
  dueAt(index: number): number {
    for (const segment of this.segments) {
      const inside = ((segment.from + segment.to) / 2) * segment.length;
      if (index >= segment.before + inside - 1e-9) continue;
      const area = index - segment.before;
      // Solve from·τ + (to-from)·τ²/(2·length) = area for τ, in the form that stays exact when from = to.
      const slope = (segment.to - segment.from) / (2 * segment.length);
      const root = Math.sqrt(Math.max(0, segment.from * segment.from + 4 * slope * area));
      const denominator = segment.from + root;
      return segment.at + (denominator === 0 ? 0 : (2 * area) / denominator);
    }
    return this.durationSeconds;
  }
}
