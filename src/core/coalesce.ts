/**
 * Wraps a task so that at most one run is in flight and at most one more is
 * queued behind it. A caller that arrives while a run is in flight joins the
 * queued run, which starts only after the current one ends: so whatever a
 * caller did before calling is covered by the run it waits for, and a burst
 * of a thousand callers costs two runs, not a thousand.
 */
export function coalesced<T>(task: () => Promise<T>): () => Promise<T> {
  let current: Promise<T> | undefined;
  let queued: Promise<T> | undefined;
  const start = (): Promise<T> => {
    const run = task();
    current = run;
    const clear = (): void => {
      if (current === run) current = undefined;
    };
    run.then(clear, clear);
    return run;
  };
  return () => {
    if (queued) return queued;
    if (!current) return start();
    const next = current.then(
      () => undefined,
      () => undefined,
    );
    queued = next.then(() => {
      queued = undefined;
      return start();
    });
    return queued;
  };
}
