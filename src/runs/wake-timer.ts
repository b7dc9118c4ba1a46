import type { Clock } from "./clock";
import { ANSWER_WAIT_BOUND_MS } from "./generator-health";

/**
 * The pump wakes at most once per slot of this length, and each wake-up
 * releases every order due by then: at a high rate one timer serves many
 * orders instead of one each (their lateness holds the slot's few ms).
 */
export const SLOT_MS = 4;
/** The loop behind its own timer by more than this is busy (generator-health.ts's bound for an answer taken late). */
const BUSY_BOUND_MS = ANSWER_WAIT_BOUND_MS;
/** How long a busy loop is remembered: its wait shows in answers and drops for a while after. */
const BUSY_MEMORY_MS = 1000;

/**
 * When the loop was last seen behind, per clock: every shard of an isolate runs on the same loop, so one that waits
 * on answers (its own timer far off) still learns the loop is busy from another shard's late wake-up.
 */
const behind = new WeakMap<Clock, { at: number }>();

/**
 * How a shard's pump sleeps: one pending timer at a time (a wait that ends
 * no sooner than the pending one reuses it, so a wake-up builds no timer,
 * controller or listener of its own), woken early by an answer only when
 * the pump asked for that (it waits for a free slot, or for its last
 * answers). How late the timer fires is the isolate's event-loop lag; an
 * answer taken while the timer is overdue was taken late by a busy loop.
 */
export class WakeTimer {
  private wake: (() => void) | undefined;
  private wakeOnAnswer = false;
  /** When the pending wait's timer is due; +Infinity while the pump is not waiting. */
  private dueAt = Number.POSITIVE_INFINITY;
  private timerAt = Number.NEGATIVE_INFINITY;
  private fired: Promise<void> = Promise.resolve();
  /** How far behind its timer the loop was at the latest wake-up. */
  lagMs = 0;
  /** When the loop was last seen behind by more than the busy bound (a late wake-up, or an answer taken late). */
  private readonly behindAt: { at: number };

  constructor(private readonly clock: Clock) {
    const shared = behind.get(clock) ?? { at: Number.NEGATIVE_INFINITY };
    behind.set(clock, shared);
    this.behindAt = shared;
  }

  /** How late an answer taken at `at` was taken: how long the pending timer had been overdue then. */
  overdueAt(at: number): number {
    const overdue = at - this.dueAt;
    if (overdue > BUSY_BOUND_MS) this.behindAt.at = at;
    return overdue;
  }

  /** Whether the loop was behind within the last second: drops and slow answers then are the generator's. */
  busy(now: number): boolean {
    return now - this.behindAt.at < BUSY_MEMORY_MS;
  }

  /** An answer came: it wakes the pump if the pump waits for one. */
  answered(): void {
    if (this.wakeOnAnswer) this.wake?.();
  }

  /** Sleeps until `until` (or an answer, with `onAnswer`); answers the lag when the timer, not an answer, woke it. */
  async sleep(until: number, onAnswer: boolean): Promise<number | null> {
    const now = this.clock.now();
    this.wakeOnAnswer = onAnswer;
    if (!(this.timerAt > now && this.timerAt <= until)) {
      this.timerAt = until;
      this.fired = this.clock.sleep(until - now);
    }
    const timerAt = this.timerAt;
    this.dueAt = timerAt;
    const answered = new Promise<void>((resolve) => (this.wake = resolve));
    const fired = await Promise.race([this.fired.then(() => true), answered.then(() => false)]);
    this.lagMs = Math.max(0, this.clock.now() - timerAt);
    if (this.lagMs > BUSY_BOUND_MS) this.behindAt.at = this.clock.now();
    this.dueAt = Number.POSITIVE_INFINITY;
    this.wakeOnAnswer = false;
    this.wake = undefined;
    return fired ? this.lagMs : null;
  }

  /** Waits for one answer, however long it takes (each request is bounded by the target's timeout). */
  async nextAnswer(): Promise<void> {
    this.wakeOnAnswer = true;
    await new Promise<void>((resolve) => (this.wake = resolve));
    this.wake = undefined;
    this.wakeOnAnswer = false;
  }
}
