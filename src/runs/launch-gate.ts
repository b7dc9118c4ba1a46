/**
 * Whether a due order leaves now, waits, or is dropped, and whose drop it
 * is. An order is held back by the target when every request slot is taken
 * (the target has not answered), and by the generator when a slot was free
 * but the generator ran late. After a stall the orders still within the
 * allowed lateness leave at most CATCH_UP_FACTOR times as fast as planned,
 * never in one burst; what cannot leave in time that way is the
 * generator's drop.
 */
import type { DropCause } from "./figures";
import { CATCH_UP_FACTOR } from "./generator-health";

export type LaunchDecision = "send" | "drop" | "wait for a slot" | "wait for pacing";

export class LaunchGate {
  /** The earliest moment the next order that is behind schedule may leave. */
  private nextFreeAt = Number.NEGATIVE_INFINITY;
  /** Every slot was taken when the pump last stopped launching: answers alone free one. */
  private full = false;

  /** Who holds back the order that is waiting now. */
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
    // An order less than one arrival behind is on schedule: a timer's jitter is not a stall to pace.
    // One the target held back (every slot was taken) leaves as answers free slots: they pace it already.
    const behind = now - due > spacingMs;
    if (behind && !this.full && now < this.nextFreeAt) return "wait for pacing";
    return "send";
  }

  /** An order left at `now`; the next one behind schedule may follow a fraction of the planned spacing later. */
  sent(now: number, spacingMs: number): void {
    this.nextFreeAt = now + spacingMs / CATCH_UP_FACTOR;
  }

  /** What the pump saw when it stopped launching: every slot taken, or not. */
  looked(full: boolean): void {
    this.full = full;
  }
}
