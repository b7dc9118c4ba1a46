/**
 * Fakes for the load engine's tests: plans with the test caps, and an order
 * API on the virtual clock that validates like the real one, is idempotent
 * by request_id, and answers after whatever delay the test gives it.
 */
import { ok, type Result } from "../../src/core/errors";
import type { Health, OrderRequest } from "../../src/orders/intake-schemas";
import { referenceData } from "../../src/orders/reference-data";
import { findOrderProblems } from "../../src/orders/validate-order";
import { emptyFigures } from "../../src/runs/figures";
import { planRun, type RunCaps, type RunRequest } from "../../src/runs/plan";
import { ShardPump } from "../../src/runs/pump";
import type { RunRecord } from "../../src/runs/record";
import type { RunPlan } from "../../src/runs/run-schemas";
import type { ShardSpec, ShardState } from "../../src/runs/shard-state";
import { type OrderApiTarget, type PostedOrder, type PostOptions, unreachable } from "../../src/synth/order-api-target";
import { HEALTHY } from "./synth-fakes";
import type { VirtualClock } from "./virtual-clock";

export const TEST_CAPS: RunCaps = {
  maxRate: 1000,
  maxSeconds: 900,
  maxOrders: 100_000,
  shardRate: 1000,
  maxShards: 8,
  maxInFlight: 64,
  maxLatenessMs: 1000,
  expectedServiceMs: 100,
  // The engine's own tests measure the model; the platform's limits have theirs (test/runs/platform-limits.test.ts).
  connectionsPerShard: null,
};

export function plan(request: Partial<RunRequest> = {}, caps: Partial<RunCaps> = {}, seed = 4242): RunPlan {
  const legacy = request.stages === undefined ? { rate_per_second: 10, duration_seconds: 5 } : {};
  const result = planRun({ mode: "seeded", ...legacy, ...request }, seed, { ...TEST_CAPS, ...caps });
  if (!result.ok) throw new Error(result.error.message);
  return result.value;
}

export function spec(runPlan: RunPlan, clock: VirtualClock, shard = 0, shards = 1): ShardSpec {
  return {
    run_id: "R-test",
    account: "acme",
    actor: "Ada via start_traffic_run",
    shard,
    shards,
    plan: runPlan,
    starts_at_ms: clock.now(),
  };
}

/** An order API on the virtual clock. `delay(sentAt)` is how long it takes to answer an order sent at that moment. */
export class ClockedApi implements OrderApiTarget {
  readonly stored = new Set<string>();
  /** [request_id, the moment it was sent, the moment it was scheduled for] per post, in order. */
  readonly posts: { id: string; at: number; scheduledAt: number | undefined }[] = [];
  inFlight = 0;
  maxInFlight = 0;
  down = false;
  postsDown = false;

  constructor(
    private readonly clock: VirtualClock,
    private readonly delay: (sentAt: number) => number = () => 5,
  ) {}

  async health(): Promise<Result<Health>> {
    return this.down ? unreachable("connection refused") : ok(HEALTHY);
  }

  async postOrder(order: OrderRequest, options: PostOptions = {}): Promise<Result<PostedOrder>> {
    options.onSent?.();
    if (this.down || this.postsDown) return unreachable("connection refused");
    const at = this.clock.now();
    this.posts.push({ id: order.request_id, at, scheduledAt: options.scheduledAtMs });
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    await this.clock.sleep(this.delay(at));
    this.inFlight--;
    const problems = findOrderProblems(order, referenceData);
    if (problems.length > 0) return ok({ status: 422, body: { errors: problems } });
    if (this.stored.has(order.request_id)) return ok({ status: 200, body: {} });
    this.stored.add(order.request_id);
    return ok({ status: 201, body: {} });
  }
}

/**
 * A target of `servers` workers taking `ms` each, the rest waiting in its queue (the reference target's schedule c):
 * under overload its answers slow as its queue grows, as a real saturated target's do.
 */
export function queueing(servers: number, ms: number): (sentAt: number) => number {
  const free = Array.from({ length: servers }, () => Number.NEGATIVE_INFINITY);
  return (sentAt) => {
    const soonest = free.indexOf(Math.min(...free));
    const starts = Math.max(sentAt, free[soonest] ?? sentAt);
    free[soonest] = starts + ms;
    return starts + ms - sentAt;
  };
}

/** A target that freezes for `stallMs` at the start of every `everyMs` window, then answers in `baseMs`. */
export function stalling(stallMs: number, everyMs: number, baseMs = 5): (sentAt: number) => number {
  return (sentAt) => {
    const phase = sentAt % everyMs;
    return phase < stallMs ? stallMs - phase + baseMs : baseMs;
  };
}

export interface PumpRig {
  readonly pump: ShardPump;
  readonly checkpoints: ShardState[];
  stop(): void;
}

export function rig(
  shardSpec: ShardSpec,
  api: OrderApiTarget,
  clock: VirtualClock,
  maxPauseSeconds = 10,
  subrequestsLeft?: () => number,
): PumpRig {
  const checkpoints: ShardState[] = [];
  let stopped = false;
  const pump = new ShardPump(shardSpec, {
    clock,
    target: api,
    reference: referenceData,
    maxPauseSeconds,
    checkpoint: (state) => void checkpoints.push(structuredClone(state)),
    stopped: () => stopped,
    ...(subrequestsLeft ? { subrequestsLeft } : {}),
  });
  return { pump, checkpoints, stop: () => (stopped = true) };
}

/** A stored run as the coordinator writes it, before its first tick. */
export function runRecord(
  runPlan: RunPlan,
  runId = `R-${crypto.randomUUID().slice(0, 8)}`,
  startedAt = new Date(),
): RunRecord {
  return {
    run_id: runId,
    status: "running",
    operator: "Ada Ops (acme, local dev)",
    started_at: startedAt.toISOString(),
    finished_at: null,
    plan: runPlan,
    problem: null,
    paused: null,
    figures: emptyFigures(),
    shards: Array.from({ length: runPlan.shards }, () => ({
      status: "running" as const,
      problem: null,
      dropped: 0,
      max_in_flight: 0,
    })),
    in_flight: 0,
    current_rate: 0,
    locations: [],
    last_tick_ms: startedAt.getTime(),
    missed_ticks: 0,
  };
}
