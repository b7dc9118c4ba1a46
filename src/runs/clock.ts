/** Time as the pump sees it; tests pass a virtual clock, so a minute of load runs in milliseconds. */
export interface Clock {
  now(): number;
  /**
   * Resolves after `ms`, or as soon as `signal` aborts; an aborted sleep lets go of its timer.
   * The pump sleeps once per answer at a high rate, and an isolate allows 10,000 timers at once.
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const realClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, ms));
      signal?.addEventListener("abort", done, { once: true });
    }),
};
