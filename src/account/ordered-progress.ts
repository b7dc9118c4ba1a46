/** Called by the account object with each answered order while a batch runs. */
export type ProgressListener = (sent: number, total: number) => void | Promise<void>;

/**
 * Progress reports leave in the order they were made, one at a time, without
 * holding up the batch; the caller waits for the last one before answering.
 */
export function ordered(listener: ProgressListener): {
  report: (sent: number, total: number) => Promise<void>;
  drained: () => Promise<void>;
} {
  let chain: Promise<void> = Promise.resolve();
  return {
    report: (sent, total) => {
      chain = chain.then(() => listener(sent, total)).catch(() => undefined);
      return chain;
    },
    drained: () => chain,
  };
}
