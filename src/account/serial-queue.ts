/**
 * Runs async tasks one at a time, in arrival order. A Durable Object's input
 * gate only serializes storage calls: once a handler awaits a fetch, another
 * request can run. Work that must not interleave (a batch send, a proposal
 * confirmation) goes through one of these instead.
 */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.tail.then(task, task);
    // Keep the chain alive whether the task succeeds or fails.
    this.tail = result.catch(() => undefined);
    return result;
  }
}
