/**
 * Whether a due order leaves now, waits, or is dropped, and whose drop it
 * is. An order is held back by the target when every request slot is taken
 * (the target has not answered), and by the generator when a slot was free
 * but the generator ran late. After a stall the orders still within the
 * allowed lateness leave at most CATCH_UP_FACTOR times as fast as planned,
 * never in one burst; what cannot leave in time that way is the
 * generator's drop.
 *
 * The catch-up pace is a token bucket: each late order takes a token, and
 * tokens come back at CATCH_UP_FACTOR times the planned rate, with at most
 * one wake-up's worth (`creditMs`) saved up. So one wake-up releases every
 * late order the pace allows up to now, not one per wake-up: a shard that
 * wakes every few milliseconds keeps up with any rate its pace allows.
 */
import type { DropCause } from "./figures";
import { CATCH_UP_FACTOR } from "./generator-health";

export type LaunchDecision = "send" | "drop" | "wait for a slot" | "wait for pacing";

export class LaunchGate {
  /** When the bucket is next full enough for one late order; it never lags now by more than the credit. */
  private nextFreeAt = Number.NEGATIVE_INFINITY;
  /** Every slot was taken when the pump last stopped launching: answers alone free one. */
  private full = false;

  /** `creditMs`: how much catch-up the bucket saves (one wake-up's time slot). */
  constructor(private readonly creditMs = 0) {}

  /** Whether every slot was taken when the pump last looked: a drop now is held back by answers, not by a late loop. */
  get slotsFull(): boolean {
    return this.full;
  }

  /** Who holds back the order that is waiting now, when a full set of slots means the target. */
  get cause(): DropCause {
    return this.full ? "target" : "generator";
  }

  /** When an order that is behind schedule may next leave. */
  get pacedUntil(): number {
    return this.nextFreeAt;
  }

  /**
   * An order due at `due`, `spacingMs` after the one before it in this
   * shard's schedule, at `now` with `room` for one more request.
   */
  decide(due: number, spacingMs: number, now: number, latenessMs: number, room: boolean): LaunchDecision {
    if (now - due > latenessMs) return "drop";
    if (!room) return "wait for a slot";
    // An order less than one arrival (or one wake-up's slot) behind is on schedule: that is not a stall to pace.
    // One the target held back (every slot was taken) leaves as answers free slots: they pace it already.
    const behind = now - due > Math.max(spacingMs, this.creditMs);
    if (behind && !this.full && now < this.nextFreeAt) return "wait for pacing";
    return "send";
  }

  /** An order left at `now`: it takes one token, which comes back a fraction of the planned spacing later. */
  sent(now: number, spacingMs: number): void {
    this.nextFreeAt = Math.max(this.nextFreeAt, now - this.creditMs) + spacingMs / CATCH_UP_FACTOR;
  }

  /**
   * Whose drop an order is when it cannot leave in time. A slot was free, or the generator's own loop is behind
   * (`busy`: answers then wait on it, not on the target): the generator's. Every slot was taken: the target's when it
   * answers slower (`serviceMs`, or the oldest request's age so far) than the fan-out was sized for (`sizedMs`), else
   * the fan-out's: the platform's connections per invocation, not the target, held the order.
   */
  dropCause(busy: boolean, serviceMs: number, sizedMs: number): DropCause {
    if (!this.full || busy) return "generator";
    return serviceMs > sizedMs ? "target" : "fan-out";
  }

  /** What the pump saw when it stopped launching: every slot taken, or not. */
  looked(full: boolean): void {
    this.full = full;
  }
}
