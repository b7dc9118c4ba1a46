import type { ShardState } from "./shard-state";

/** What one window (about a second) of sending brought: answers, failures without one, and the last failure's words. */
export interface SendWindow {
  answered: number;
  failed: number;
  lastFailure: string;
}

/**
 * Once a second: a window in which every order failed without an answer
 * pauses the run (the target is down; flooding it helps nobody), and one
 * that has gone on too long ends it. `windowMs` is the window's length.
 */
export function afterWindow(
  state: ShardState,
  window: SendWindow,
  now: number,
  windowMs: number,
  maxPauseSeconds: number,
): ShardState {
  const cursor = { ...state.cursor, checkpoint_ms: now };
  if (window.answered > 0) return { ...state, cursor: { ...cursor, unreachable_since_ms: null } };
  if (window.failed === 0) return { ...state, cursor };
  const since = cursor.unreachable_since_ms ?? now - windowMs;
  const away = now - since;
  if (away >= maxPauseSeconds * 1000) {
    return {
      ...state,
      cursor: { ...cursor, unreachable_since_ms: since },
      status: "failed",
      problem: `no order reached the order API for ${Math.round(away / 1000)} s, although it answered its health check, so the run gave up: ${window.lastFailure}`,
    };
  }
  return {
    ...state,
    cursor: {
      ...cursor,
      unreachable_since_ms: since,
      paused: { since: new Date(now).toISOString(), reason: window.lastFailure },
    },
  };
}
