import { hex } from "../core/encoding";

function randomHex(bytes: number): string {
  return hex(crypto.getRandomValues(new Uint8Array(bytes)));
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
