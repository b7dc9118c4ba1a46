/**
 * One generator shard of a run: which orders it sends (every `shards`-th,
 * starting at `shard`), and the state it persists about once a second so a
 * restarted object goes on where it was. Order i of a run is always order i
 * of its seed's stream, so an order re-sent after a restart has the same
 * request_id and the target answers it 200 without a duplicate.
 */
import { z } from "zod/v4";
import { emptyFigures } from "./figures";
import type { Location } from "./locations";
import { FiguresSchema, RunPlanSchema } from "./run-schemas";

export const ShardSpecSchema = z.object({
  run_id: z.string(),
  account: z.string(),
  /** Who the orders are sent for, as the target's x-order-ops-actor header says. */
  actor: z.string(),
  shard: z.number().int().nonnegative(),
  shards: z.number().int().positive(),
  plan: RunPlanSchema,
  /** When the run's order 0 was due (epoch ms). */
  starts_at_ms: z.number(),
});
export type ShardSpec = z.infer<typeof ShardSpecSchema>;

export const ShardStatusSchema = z.enum(["running", "completed", "stopped", "failed", "interrupted"]);
export type ShardStatus = z.infer<typeof ShardStatusSchema>;

export const ShardStateSchema = z.object({
  status: ShardStatusSchema,
  problem: z.string().nullable(),
  figures: FiguresSchema,
  cursor: z.object({
    /** The next order (run index) this shard schedules. */
    next_index: z.number().int(),
    /** Orders that had left but were not answered at the checkpoint: re-sent on a resume. */
    in_flight: z.array(z.number().int()),
    /** When order 0 was due, moved forward by every pause and downtime so a resumed run does not burst. */
    schedule_start_ms: z.number(),
    checkpoint_ms: z.number(),
    /** When the target stopped answering; only an answered order clears it. */
    unreachable_since_ms: z.number().nullable(),
    paused: z.object({ since: z.string(), reason: z.string() }).nullable(),
    /** The state was written at a planned hand-over between two invocations, not lost to a restart. */
    handed_over: z.boolean().default(false),
  }),
});
export type ShardState = z.infer<typeof ShardStateSchema>;

/** What a shard tells the run's coordinator: its state, and what is in flight right now. */
export interface ShardProgress {
  readonly state: ShardState;
  readonly in_flight: number;
}

/** Where a shard starts: its first order (its position in the run), nothing sent, the schedule at its start. */
export function initialShardState(spec: ShardSpec): ShardState {
  return {
    status: "running",
    problem: null,
    figures: emptyFigures(),
    cursor: {
      next_index: spec.shard,
      in_flight: [],
      schedule_start_ms: spec.starts_at_ms,
      checkpoint_ms: spec.starts_at_ms,
      unreachable_since_ms: null,
      paused: null,
      handed_over: false,
    },
  };
}

/** The load zone shard `index` of a plan is created in: shard i in locations[i mod n]; undefined without locations. */
export function shardLocation(plan: { readonly locations?: readonly Location[] }, index: number): Location | undefined {
  const locations = plan.locations ?? [];
  return locations.length === 0 ? undefined : locations[index % locations.length];
}

/** The object a shard lives in: one per account, run and position, so no two runs share one. */
export function shardName(account: string, runId: string, shard: number): string {
  return `${account}/${runId}/${shard}`;
}
