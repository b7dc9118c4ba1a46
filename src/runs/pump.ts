import type { ReferenceData } from "../orders/reference-data";
import type { OrderApiTarget } from "../synth/order-api-target";
import type { Clock } from "./clock";
import { emptyFigures, RunFigures } from "./figures";
import { LaunchGate } from "./launch-gate";
import { OrderSource } from "./order-source";
import { afterWindow, type SendWindow } from "./outage";
import { ArrivalSchedule } from "./plan";
import { resumedState } from "./shard-resume";
import type { ShardProgress, ShardSpec, ShardState, ShardStatus } from "./shard-state";

const CHECKPOINT_MS = 1000;
/** While paused, how often the target's health is asked again. */
const PAUSE_RETRY_MS = 2000;

interface PumpDeps {
  readonly clock: Clock;
  readonly target: OrderApiTarget;
  readonly reference: ReferenceData;
  /** How long the run may wait for an unreachable target before it fails. */
  readonly maxPauseSeconds: number;
  /** Persists the state: about once a second, and once at the end. */
  checkpoint(state: ShardState): Promise<void> | void;
  /** Asked before every send: a stop takes effect before the next order leaves. */
  stopped(): boolean;
}

/**
 * The open-model generator of one shard: each order leaves at its scheduled
 * instant whether or not earlier ones have been answered, up to the plan's
 * max_in_flight requests at once. An order that cannot leave within
 * max_lateness_ms of its instant is dropped and counted (at its wait so
 * far), never sent late in a burst: after a stall, late orders leave at
 * most CATCH_UP_FACTOR times as fast as planned (launch-gate.ts). Each
 * answer is timed from the scheduled instant (the latency a user arriving
 * then would see, queueing included) and from the moment it was handed to
 * fetch (the service time), so a target that stalls cannot hide behind a
 * generator that waited for it, and a generator that ran late is not taken
 * for a slow target.
 */
export class ShardPump {
  private readonly schedule: ArrivalSchedule;
  private readonly inFlight = new Set<number>();
  private readonly gate = new LaunchGate();
  private readonly orders: OrderSource;
  private figures = new RunFigures();
  private wake: (() => void) | undefined;
  private window: SendWindow = { answered: 0, failed: 0, lastFailure: "" };
  /** The state as of the last phase, for snapshot(). */
  private current: ShardState | undefined;

  constructor(
    private readonly spec: ShardSpec,
    private readonly deps: PumpDeps,
  ) {
    this.schedule = new ArrivalSchedule(spec.plan.start_rate, spec.plan.stages);
    this.orders = new OrderSource(spec.plan, deps.reference);
  }

  static initialState(spec: ShardSpec): ShardState {
    return {
      status: "running",
      problem: null,
      figures: emptyFigures(),
      cursor: {
        next_index: spec.shard,
        in_flight: [],
        schedule_start_ms: spec.starts_at_ms,
        checkpoint_ms: spec.starts_at_ms,
        unreachable_since_ms: null,
        paused: null,
        handed_over: false,
      },
    };
  }

  /** What the coordinator reads while the pump runs: the live figures, not the last checkpoint's. */
  progress(state: ShardState): ShardProgress {
    return {
      state: { ...state, figures: this.figures.toJSON(), cursor: { ...state.cursor, in_flight: [...this.inFlight] } },
      in_flight: this.inFlight.size,
    };
  }

  snapshot(): ShardProgress | undefined {
    return this.current && this.progress(this.current);
  }

  /**
   * Runs the shard from `from` to its end (or a stop), and answers its final
   * state. With `handOverAt`, it stops sending at that moment instead, lets
   * what is in flight come back and answers a state that is still running,
   * for the next invocation to go on from: a host bounds how long one
   * invocation may work, and a checkpoint between two is a clean one.
   */
  async run(from: ShardState, handOverAt = Number.POSITIVE_INFINITY): Promise<ShardState> {
    const resumed = this.resume(from);
    if (resumed.status !== "running") return this.finish(resumed, resumed.status, resumed.problem);
    let state = resumed;
    this.current = state;
    const retries = [...from.cursor.in_flight].sort((a, b) => a - b);
    let nextCheckpoint = this.deps.clock.now() + CHECKPOINT_MS;
    for (;;) {
      if (this.deps.stopped()) return this.finish(state, "stopped", null);
      if (state.cursor.paused) {
        state = await this.waitOutPause(state);
        this.current = state;
        if (state.status !== "running") return this.finish(state, state.status, state.problem);
        nextCheckpoint = this.deps.clock.now() + CHECKPOINT_MS;
        continue;
      }
      const now = this.deps.clock.now();
      if (now >= handOverAt && retries.length === 0) return this.finish(state, "running", null, true);
      state = this.launchDue(state, retries, now);
      if (now >= nextCheckpoint) {
        state = afterWindow(state, this.window, now, CHECKPOINT_MS, this.deps.maxPauseSeconds);
        this.window = { answered: 0, failed: 0, lastFailure: "" };
        this.current = state;
        await this.deps.checkpoint(this.progress(state).state);
        if (state.status !== "running") return this.finish(state, state.status, state.problem);
        nextCheckpoint = now + CHECKPOINT_MS;
        continue;
      }
      if (retries.length === 0 && state.cursor.next_index >= this.spec.plan.total_orders && this.inFlight.size === 0) {
        return this.finish(state, "completed", null);
      }
      await this.waitForNext(state, retries, now, nextCheckpoint);
    }
  }

  /** A fresh instance picks up a stored state (see resumedState). */
  private resume(from: ShardState): ShardState {
    this.figures = new RunFigures(from.figures);
    return resumedState(from, this.deps.clock.now(), this.shareOfPlan(), this.spec.plan.max_lateness_ms);
  }

  /** How many of the plan's orders are this shard's. */
  private shareOfPlan(): number {
    const { total_orders: total } = this.spec.plan;
    return Math.max(0, Math.ceil((total - this.spec.shard) / this.spec.shards));
  }

  private dueMs(state: ShardState, index: number): number {
    return state.cursor.schedule_start_ms + this.schedule.dueAt(index) * 1000;
  }

  /** How long after order `index` this shard's next order is due. */
  private spacingMs(state: ShardState, index: number): number {
    return this.dueMs(state, index + this.spec.shards) - this.dueMs(state, index);
  }

  /** Sends (or drops) every order whose moment has come, as far as the in-flight cap and the catch-up pace allow. */
  private launchDue(state: ShardState, retries: number[], now: number): ShardState {
    const { max_in_flight: cap, max_lateness_ms: lateness, total_orders: total } = this.spec.plan;
    while (retries.length > 0 && this.inFlight.size < cap && !this.deps.stopped())
      this.send(retries.shift() as number, now, false);
    let next = state.cursor.next_index;
    while (next < total && !this.deps.stopped()) {
      const due = this.dueMs(state, next);
      if (due > now) break;
      const spacing = this.spacingMs(state, next);
      const decision = this.gate.decide(due, spacing, now, lateness, this.inFlight.size < cap);
      if (decision === "wait for a slot" || decision === "wait for pacing") break;
      if (decision === "drop") {
        this.figures.dropped(now - due, this.gate.cause);
      } else {
        this.send(next, due, this.gate.cause === "generator");
        this.gate.sent(now, spacing);
      }
      next += this.spec.shards;
    }
    // Until the loop looks again, an order falling due is held back by the target exactly when no slot is free now.
    this.gate.looked(this.inFlight.size >= cap);
    return next === state.cursor.next_index ? state : { ...state, cursor: { ...state.cursor, next_index: next } };
  }

  /**
   * Hands order `index` to the target. Its lateness is read when the target
   * hands it to fetch, and service time starts there; `generatorsOwn` says
   * whether a slot was free all along, so the wait was the generator's.
   */
  private send(index: number, dueMs: number, generatorsOwn: boolean): void {
    const { order, expect } = this.orders.at(index);
    this.inFlight.add(index);
    this.figures.launched(this.inFlight.size);
    let sentAt = this.deps.clock.now();
    const onSent = () => {
      sentAt = this.deps.clock.now();
      this.figures.handedToFetch(sentAt - dueMs, generatorsOwn);
    };
    void this.deps.target.postOrder(order, { scheduledAtMs: dueMs, onSent }).then((posted) => {
      const done = this.deps.clock.now();
      this.inFlight.delete(index);
      if (posted.ok) {
        this.window.answered++;
        this.figures.answered({
          status: posted.value.status,
          body: posted.value.body,
          latencyMs: done - dueMs,
          serviceMs: done - sentAt,
          index,
          expect,
        });
      } else {
        this.window.failed++;
        this.window.lastFailure = posted.error.message;
        this.figures.failed();
      }
      this.wake?.();
    });
  }

  private async waitOutPause(state: ShardState): Promise<ShardState> {
    const paused = state.cursor.paused;
    if (!paused) return state;
    const since = Date.parse(paused.since);
    await this.deps.clock.sleep(PAUSE_RETRY_MS);
    if (this.deps.stopped()) return state;
    const health = await this.deps.target.health();
    const now = this.deps.clock.now();
    if (!health.ok) {
      const away = now - (state.cursor.unreachable_since_ms ?? since);
      if (away >= this.deps.maxPauseSeconds * 1000) {
        return {
          ...state,
          status: "failed",
          problem: `the order API stayed unreachable for ${Math.round(away / 1000)} s, so the run gave up: ${health.error.message}`,
        };
      }
      const waiting = { ...state, cursor: { ...state.cursor, checkpoint_ms: now } };
      await this.deps.checkpoint(this.progress(waiting).state);
      return waiting;
    }
    this.figures.paused(now - since);
    const resumed = {
      ...state,
      cursor: {
        ...state.cursor,
        paused: null,
        checkpoint_ms: now,
        schedule_start_ms: state.cursor.schedule_start_ms + (now - since),
      },
    };
    await this.deps.checkpoint(this.progress(resumed).state);
    return resumed;
  }

  /** Sleeps until the next order is due, an answer frees a slot, or the next checkpoint, whichever comes first. */
  private async waitForNext(
    state: ShardState,
    retries: readonly number[],
    now: number,
    nextCheckpoint: number,
  ): Promise<void> {
    const { max_in_flight: cap, total_orders: total } = this.spec.plan;
    let until = nextCheckpoint;
    const room = this.inFlight.size < cap;
    if (room && retries.length > 0) until = now;
    else if (room && state.cursor.next_index < total) {
      // Not yet due, or due and waiting for the catch-up pace.
      const due = this.dueMs(state, state.cursor.next_index);
      until = Math.min(until, due > now ? due : this.gate.pacedUntil);
    }
    if (until <= now && room) return;
    const answered = new Promise<void>((resolve) => (this.wake = resolve));
    const woken = new AbortController();
    await Promise.race([this.deps.clock.sleep(until - now, woken.signal), answered]);
    // An answer that came first cancels the sleep, so its timer does not outlive the wait.
    woken.abort();
    this.wake = undefined;
  }

  /** Lets what is in flight come back (each request is bounded by the target's timeout), then writes where it is. */
  private async finish(
    state: ShardState,
    status: ShardStatus,
    problem: string | null,
    handedOver = false,
  ): Promise<ShardState> {
    while (this.inFlight.size > 0) await new Promise<void>((resolve) => (this.wake = resolve));
    this.wake = undefined;
    const final = {
      ...this.progress(state).state,
      status,
      problem,
      // A hand-over is a planned checkpoint: the next invocation keeps the schedule (shard-resume.ts).
      cursor: { ...state.cursor, in_flight: [], checkpoint_ms: this.deps.clock.now(), handed_over: handedOver },
    };
    this.current = final;
    await this.deps.checkpoint(final);
    return final;
  }
}
