/**
 * One timer for every request's deadline instead of one per request.
 * `AbortSignal.timeout` keeps a timer alive for its whole timeout, and an
 * isolate may hold 10,000 at once: at 1,000 orders a second with a 10 s
 * timeout a generator hit that cap. Every request of one target has the same
 * timeout, so deadlines come in the order requests start: a queue whose head
 * is always the next to expire, and a single timer armed for it.
 */
interface Entry {
  readonly deadline: number;
  readonly controller: AbortController;
  done: boolean;
}

/** The clock and timer the sweep runs on; tests pass their own. */
export interface SweepTimers {
  now(): number;
  set(run: () => void, ms: number): unknown;
  clear(timer: unknown): void;
}

const realTimers: SweepTimers = {
  now: () => Date.now(),
  set: (run, ms) => setTimeout(run, ms),
  clear: (timer) => clearTimeout(timer as ReturnType<typeof setTimeout>),
};

export class DeadlineSweep {
  private readonly entries: Entry[] = [];
  private head = 0;
  private timer: unknown;
  private armedFor = Number.POSITIVE_INFINITY;

  constructor(
    private readonly timeoutMs: number,
    private readonly timers: SweepTimers = realTimers,
  ) {}

  /** A signal that aborts with a TimeoutError `timeoutMs` from now; call the returned `done` when the request ends. */
  start(): { signal: AbortSignal; done: () => void } {
    const entry: Entry = {
      deadline: this.timers.now() + this.timeoutMs,
      controller: new AbortController(),
      done: false,
    };
    this.entries.push(entry);
    if (this.timer === undefined) this.arm(entry.deadline);
    return {
      signal: entry.controller.signal,
      done: () => {
        entry.done = true;
        this.dropSettled();
      },
    };
  }

  private arm(deadline: number): void {
    this.armedFor = deadline;
    this.timer = this.timers.set(() => this.sweep(), Math.max(0, deadline - this.timers.now()));
  }

  private sweep(): void {
    this.timer = undefined;
    this.armedFor = Number.POSITIVE_INFINITY;
    const now = this.timers.now();
    while (this.head < this.entries.length) {
      const entry = this.entries[this.head] as Entry;
      if (!entry.done && entry.deadline > now) break;
      if (!entry.done) {
        entry.done = true;
        entry.controller.abort(new DOMException("The request timed out", "TimeoutError"));
      }
      this.head++;
    }
    this.compact();
    const next = this.entries[this.head];
    if (next) this.arm(next.deadline);
  }

  /** Settled requests at the head leave the queue; with none left, the timer goes too, so nothing outlives the work. */
  private dropSettled(): void {
    while (this.head < this.entries.length && (this.entries[this.head] as Entry).done) this.head++;
    this.compact();
    const next = this.entries[this.head];
    if (!next && this.timer !== undefined) {
      this.timers.clear(this.timer);
      this.timer = undefined;
      this.armedFor = Number.POSITIVE_INFINITY;
    } else if (next && this.timer === undefined && next.deadline < this.armedFor) {
      this.arm(next.deadline);
    }
  }

  private compact(): void {
    if (this.head > 1024 && this.head * 2 > this.entries.length) {
      this.entries.splice(0, this.head);
      this.head = 0;
    }
  }
}
