import { describe, expect, it } from "vitest";
import { DeadlineSweep, type SweepTimers } from "../../src/synth/deadline-sweep";

// Every request of a target has the same timeout, so one timer keeps all their
// deadlines: a timer per request (AbortSignal.timeout) hit the isolate's cap of
// 10,000 at about 1,000 orders a second with a 10 s timeout.

class FakeTimers implements SweepTimers {
  time = 0;
  readonly pending = new Map<number, { at: number; run: () => void }>();
  private next = 0;
  now(): number {
    return this.time;
  }
  set(run: () => void, ms: number): unknown {
    const id = this.next++;
    this.pending.set(id, { at: this.time + ms, run });
    return id;
  }
  clear(timer: unknown): void {
    this.pending.delete(timer as number);
  }
  /** Moves time to `to`, firing what falls due in order. */
  advance(to: number): void {
    for (;;) {
      const due = [...this.pending].filter(([, t]) => t.at <= to).sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      this.pending.delete(due[0]);
      this.time = due[1].at;
      due[1].run();
    }
    this.time = to;
  }
}

describe("one timer for every request's deadline", () => {
  it("holds 12,000 requests' deadlines (past the isolate's 10,000 timers) with a single timer, and aborts each one that outlives its timeout", () => {
    const timers = new FakeTimers();
    const sweep = new DeadlineSweep(10_000, timers);
    const requests = Array.from({ length: 12_000 }, (_, i) => {
      timers.time = i / 2;
      return sweep.start();
    });
    expect(timers.pending.size).toBe(1);
    // Most of them are answered in time.
    for (const request of requests.slice(0, 10_000)) request.done();
    timers.advance(20_000);
    expect(requests.slice(0, 10_000).every((r) => !r.signal.aborted)).toBe(true);
    const late = requests.slice(10_000);
    expect(late.every((r) => r.signal.aborted)).toBe(true);
    expect((late[0]?.signal.reason as DOMException | undefined)?.name).toBe("TimeoutError");
    expect(timers.pending.size).toBe(0);
  });

  it("lets its timer go once every request has ended, so nothing outlives the work", () => {
    const timers = new FakeTimers();
    const sweep = new DeadlineSweep(10_000, timers);
    const one = sweep.start();
    const two = sweep.start();
    expect(timers.pending.size).toBe(1);
    one.done();
    two.done();
    expect(timers.pending.size).toBe(0);
    expect(one.signal.aborted || two.signal.aborted).toBe(false);
  });
});
