import type { Clock } from "../../src/runs/clock";

/**
 * Time that moves only when everything is waiting on it: each sleep is a
 * timer, and run() fires the earliest one whenever no other work is left,
 * so a minute of load runs in milliseconds and always the same way.
 */
export class VirtualClock implements Clock {
  private time: number;
  private order = 0;
  private readonly timers: { at: number; order: number; wake: () => void }[] = [];
  private stall: { at: number; ms: number } | undefined;

  constructor(start = Date.parse("2026-12-01T10:00:00.000Z")) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((wake) => {
      if (signal?.aborted) return wake();
      const timer = { at: this.time + Math.max(0, ms), order: this.order++, wake };
      this.timers.push(timer);
      signal?.addEventListener(
        "abort",
        () => {
          const index = this.timers.indexOf(timer);
          if (index >= 0) this.timers.splice(index, 1);
          wake();
        },
        { once: true },
      );
    });
  }

  /** Sleeps not yet over: the timers a real isolate would be holding now. */
  get pendingTimers(): number {
    return this.timers.length;
  }

  /**
   * Freezes everything once, as a busy thread does: the first timer due at
   * or after `at` fires `ms` late, and every other one due meanwhile with it.
   */
  stallAt(at: number, ms: number): void {
    this.stall = { at, ms };
  }

  /** Moves time forward by hand (downtime between two runs of a shard). */
  advance(ms: number): void {
    this.time += ms;
  }

  /** Drives `work` to its end, firing timers in time order whenever it waits on nothing else. */
  async run<T>(work: Promise<T>): Promise<T> {
    let settled = false;
    const done = work.finally(() => {
      settled = true;
    });
    done.catch(() => undefined);
    while (!settled) {
      await drain();
      if (settled) break;
      this.timers.sort((a, b) => a.at - b.at || a.order - b.order);
      const next = this.timers.shift();
      if (!next) throw new Error("virtual clock: the work waits on something other than time");
      this.time = Math.max(this.time, next.at);
      if (this.stall && next.at >= this.stall.at) {
        this.time += this.stall.ms;
        this.stall = undefined;
      }
      next.wake();
    }
    return done;
  }
}

/** Lets every promise that can settle without time passing do so. */
async function drain(): Promise<void> {
  for (let i = 0; i < 50; i++) await Promise.resolve();
}
