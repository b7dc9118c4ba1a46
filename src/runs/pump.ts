import type { ReferenceData } from "../orders/reference-data";
import type { OrderApiTarget } from "../synth/order-api-target";
import type { Clock } from "./clock";
import { RunFigures } from "./figures";
import { ANSWER_WAIT_BOUND_MS } from "./generator-health";
import { LaunchGate } from "./launch-gate";
import { OrderSource } from "./order-source";
import { afterWindow, pausedStep, type SendWindow } from "./outage";
import { ArrivalSchedule } from "./plan";
import { resumedState } from "./shard-resume";
import {
  initialShardState,
  type ShardProgress,
  type ShardSpec,
  type ShardState,
  type ShardStatus,
} from "./shard-state";
import { SLOT_MS, WakeTimer } from "./wake-timer";

const CHECKPOINT_MS = 1000;
const PAUSE_RETRY_MS = 2000; // While paused, how often the target's health is asked again.
/** Subrequests an invocation keeps for what it must still ask after its last send: a health check while paused. */
const SUBREQUEST_RESERVE = 2;
const SERVICE_SMOOTHING = 0.1; // How fast the running service time follows new answers (an exponential average).

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
  /** Subrequests the invocation may still make (core/platform-limits.ts): it hands over before they run out. */
  subrequestsLeft?(): number;
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
  /** The orders in flight, each with when it left, oldest first. */
  private readonly inFlight = new Map<number, number>();
  private readonly gate = new LaunchGate(SLOT_MS);
  private readonly orders: OrderSource;
  private figures = new RunFigures();
  private readonly timer: WakeTimer;
  /** The target's recent service time, and how many answers it is from: those taken on time. */
  private serviceMs = 0;
  private onTimeAnswers = 0;
  private readonly scheduleEndMs: (state: ShardState) => number;
  private window: SendWindow = { answered: 0, failed: 0, lastFailure: "" };
  /** The state as of the last phase, for snapshot(). */
  private current: ShardState | undefined;

  constructor(
    private readonly spec: ShardSpec,
    private readonly deps: PumpDeps,
  ) {
    this.schedule = new ArrivalSchedule(spec.plan.start_rate, spec.plan.stages);
    this.orders = new OrderSource(spec.plan, deps.reference);
    this.timer = new WakeTimer(deps.clock);
    const lastInstant = this.schedule.dueAt(Math.max(0, spec.plan.total_orders - 1)) * 1000;
    this.scheduleEndMs = (state) => state.cursor.schedule_start_ms + lastInstant;
  }

  static initialState(spec: ShardSpec): ShardState {
    return initialShardState(spec);
  }

  /** What the coordinator reads while the pump runs: the live figures, not the last checkpoint's. */
  progress(state: ShardState): ShardProgress {
    return {
      state: {
        ...state,
        figures: this.figures.toJSON(),
        cursor: { ...state.cursor, in_flight: [...this.inFlight.keys()] },
      },
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
      // Hand over before the invocation's time or subrequests run out: the next one goes on from a clean checkpoint.
      const spent = (this.deps.subrequestsLeft?.() ?? Number.POSITIVE_INFINITY) <= SUBREQUEST_RESERVE;
      if ((now >= handOverAt || spent) && retries.length === 0) return this.finish(state, "running", null, true);
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
    const budget = () => (this.deps.subrequestsLeft?.() ?? Number.POSITIVE_INFINITY) > SUBREQUEST_RESERVE;
    while (retries.length > 0 && this.inFlight.size < cap && !this.deps.stopped() && budget())
      this.send(retries.shift() as number, now, false, state);
    let next = state.cursor.next_index;
    const busy = this.timer.busy(now);
    while (next < total && !this.deps.stopped() && budget()) {
      const due = this.dueMs(state, next);
      if (due > now) break;
      const spacing = this.spacingMs(state, next);
      const decision = this.gate.decide(due, spacing, now, lateness, this.inFlight.size < cap);
      if (decision === "wait for a slot" || decision === "wait for pacing") break;
      if (decision === "drop") {
        const oldest = this.inFlight.values().next();
        // Age speaks for a target not yet answering; then on-time answers do (an age holds a busy loop's wait too).
        const ageMs = oldest.done || this.onTimeAnswers > 0 ? 0 : now - oldest.value;
        const sizedMs = this.spec.plan.expected_service_ms;
        this.figures.dropped(now - due, this.gate.dropCause(busy, Math.max(this.serviceMs, ageMs), sizedMs));
      } else {
        this.send(next, due, this.gate.cause === "generator", state);
        this.gate.sent(now, spacing);
      }
      next += this.spec.shards;
    }
    // Until the loop looks again, an order falling due is held back by the target exactly when no slot is free now.
    this.gate.looked(this.inFlight.size >= cap);
    return next === state.cursor.next_index ? state : { ...state, cursor: { ...state.cursor, next_index: next } };
  }

  /**
   * Hands order `index` to the target. Its lateness is read when the request
   * really leaves (after any wait for one of the invocation's connections),
   * and service time starts there; `generatorsOwn` says whether a slot was
   * free all along, so the wait was the generator's.
   */
  private send(index: number, dueMs: number, generatorsOwn: boolean, state: ShardState): void {
    const { order, expect } = this.orders.at(index);
    this.inFlight.set(index, this.deps.clock.now());
    this.figures.launched(this.inFlight.size);
    let sentAt = this.deps.clock.now();
    const onSent = () => {
      sentAt = this.deps.clock.now();
      if (this.inFlight.has(index)) this.inFlight.set(index, sentAt);
      this.figures.handedToFetch(sentAt - dueMs, generatorsOwn);
      if (sentAt > this.scheduleEndMs(state) + this.spec.plan.max_lateness_ms) this.figures.sentAfterSchedule();
    };
    // A drill order's answer is read whole, to check its reasons; an ordinary accepted one only by its status.
    const options = { scheduledAtMs: dueMs, onSent, statusOnly: expect === null };
    void this.deps.target.postOrder(order, options).then((posted) => {
      const done = this.deps.clock.now();
      this.inFlight.delete(index);
      if (posted.ok) {
        this.window.answered++;
        const serviceMs = done - sentAt;
        // The loop's own timer is overdue: this answer too waited for the busy isolate to take it.
        const waited = this.timer.overdueAt(done) > ANSWER_WAIT_BOUND_MS;
        if (!waited) {
          this.onTimeAnswers++;
          this.serviceMs += (serviceMs - this.serviceMs) * SERVICE_SMOOTHING;
        }
        this.figures.answered({
          status: posted.value.status,
          body: posted.value.body,
          latencyMs: done - dueMs,
          serviceMs,
          index,
          expect,
          waited,
        });
      } else {
        this.window.failed++;
        this.window.lastFailure = posted.error.message;
        this.figures.failed();
      }
      this.timer.answered();
    });
  }

  private async waitOutPause(state: ShardState): Promise<ShardState> {
    const next = await pausedStep(state, {
      ...this.deps,
      retryMs: PAUSE_RETRY_MS,
      resumedAfter: (ms) => this.figures.paused(ms),
    });
    if (next !== state && next.status === "running") await this.deps.checkpoint(this.progress(next).state);
    return next;
  }

  /**
   * Sleeps until the next order is due (at the soonest the next time slot),
   * an answer frees a slot when every one is taken, or the next checkpoint,
   * whichever comes first; records the event-loop lag of each wake-up.
   */
  private async waitForNext(
    state: ShardState,
    retries: readonly number[],
    now: number,
    nextCheckpoint: number,
  ): Promise<void> {
    const { max_in_flight: cap, total_orders: total } = this.spec.plan;
    let until = nextCheckpoint;
    const room = this.inFlight.size < cap;
    if (room && retries.length > 0 && (this.deps.subrequestsLeft?.() ?? Number.POSITIVE_INFINITY) > SUBREQUEST_RESERVE)
      until = now;
    else if (room && state.cursor.next_index < total) {
      // Not yet due, or due and waiting for the catch-up pace; never sooner than the next slot.
      const due = this.dueMs(state, state.cursor.next_index);
      until = Math.min(until, Math.max(due > now ? due : this.gate.pacedUntil, now + SLOT_MS));
    }
    if (until <= now && room) return;
    const lag = await this.timer.sleep(until, !room || state.cursor.next_index >= total);
    if (lag !== null) this.figures.woke(lag);
  }

  /** Lets what is in flight come back (each request is bounded by the target's timeout), then writes where it is. */
  private async finish(
    state: ShardState,
    status: ShardStatus,
    problem: string | null,
    handedOver = false,
  ): Promise<ShardState> {
    while (this.inFlight.size > 0) await this.timer.nextAnswer();
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
