import type { ShardState } from "./shard-state";

/** After downtime this long, a run is not resumed: the load it describes is long past. */
export const RESUME_WINDOW_MS = 10 * 60_000;

/**
 * A shard's stored state as a fresh instance picks it up at `now`: the
 * schedule moves past the downtime, unless the downtime was too long, and
 * then the shard is interrupted with a sentence that says how to go on.
 * `shareOfPlan` is how many of the plan's orders are this shard's.
 *
 * A hand-over between two invocations is a planned checkpoint: the schedule
 * does not move, and the few orders due while the next invocation started
 * leave a little late (counted as lateness) instead of the schedule losing
 * that time. Only a gap longer than the allowed lateness (a restart, not a
 * hand-over) moves it.
 */
export function resumedState(from: ShardState, now: number, shareOfPlan: number, maxLatenessMs: number): ShardState {
  const gap = now - from.cursor.checkpoint_ms;
  if (gap > RESUME_WINDOW_MS) {
    const { answered } = from.figures;
    return {
      ...from,
      status: "interrupted",
      problem: `the server was unavailable for ${Math.round(gap / 60_000)} minutes while this run was going, so it was not resumed; ${answered} of ${shareOfPlan} orders were sent. Start it again with the same seed to continue: orders already sent are answered 200 and not duplicated.`,
    };
  }
  // The schedule goes on from where the checkpoint left it: orders due during the downtime are sent, not dropped.
  const planned = from.cursor.handed_over === true && gap <= maxLatenessMs;
  const moved = planned ? 0 : Math.max(0, gap);
  return {
    ...from,
    cursor: {
      ...from.cursor,
      schedule_start_ms: from.cursor.schedule_start_ms + moved,
      checkpoint_ms: now,
      handed_over: false,
    },
  };
}
