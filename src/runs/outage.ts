import type { OrderApiTarget } from "../synth/order-api-target";
import type { Clock } from "./clock";
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

/**
 * One round of a pause for an unreachable target: wait, ask its health again, and answer the state after it: still
 * paused (the checkpoint moved on), resumed (the schedule moved past the pause, so nothing bursts), or failed once it
 * stayed away longer than `maxPauseSeconds`. The same state back means a stop came during the wait.
 */
export async function pausedStep(
  state: ShardState,
  deps: {
    readonly clock: Clock;
    readonly target: Pick<OrderApiTarget, "health">;
    readonly maxPauseSeconds: number;
    readonly retryMs: number;
    stopped(): boolean;
    resumedAfter(ms: number): void;
  },
): Promise<ShardState> {
  const paused = state.cursor.paused;
  if (!paused) return state;
  const since = Date.parse(paused.since);
  await deps.clock.sleep(deps.retryMs);
  if (deps.stopped()) return state;
  const health = await deps.target.health();
  const now = deps.clock.now();
  if (!health.ok) {
    const away = now - (state.cursor.unreachable_since_ms ?? since);
    if (away >= deps.maxPauseSeconds * 1000) {
      return {
        ...state,
        status: "failed",
        problem: `the order API stayed unreachable for ${Math.round(away / 1000)} s, so the run gave up: ${health.error.message}`,
      };
    }
    return { ...state, cursor: { ...state.cursor, checkpoint_ms: now } };
  }
  deps.resumedAfter(now - since);
  return {
    ...state,
    cursor: {
      ...state.cursor,
      paused: null,
      checkpoint_ms: now,
      schedule_start_ms: state.cursor.schedule_start_ms + (now - since),
    },
  };
}
