function randomHex(bytes: number): string {
  return [...crypto.getRandomValues(new Uint8Array(bytes))].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Batch ids sort by start time and stay unique within the account. */
export function newBatchId(): string {
  return `B-${Date.now().toString(36)}-${randomHex(4)}`;
}

/** Run ids, likewise. */
export function newRunId(): string {
  return `R-${Date.now().toString(36)}-${randomHex(4)}`;
}

/** Capacity search ids, likewise. */
export function newSearchId(): string {
  return `S-${Date.now().toString(36)}-${randomHex(4)}`;
}
