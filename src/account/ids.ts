/** Batch ids sort by start time and stay unique within the account. */
export function newBatchId(): string {
  const random = crypto.getRandomValues(new Uint8Array(4));
  return `B-${Date.now().toString(36)}-${[...random].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
}
