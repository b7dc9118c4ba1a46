/**
 * Reads `read` until `done` holds or `timeoutMs` passes, and answers the last
 * reading either way, so the caller's assertion says what was seen. For the
 * tests that watch real objects on real time (a run's alarms); logic with a
 * clock of its own is tested on the virtual clock instead.
 */
export async function waitFor<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 15_000,
  everyMs = 200,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
