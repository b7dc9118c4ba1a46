import { z } from "zod/v4";
import { LocationFiguresSchema } from "./locations";
import { FiguresSchema, RunPlanSchema, RunStatusSchema } from "./run-schemas";
import { ShardStatusSchema } from "./shard-state";

/**
 * What the account's object stores per run: who started it, the plan, the
 * shards' figures added up at the latest tick, and how the run ended. The
 * summary a tool answers (percentiles, verdict, limits) is derived from it on
 * read, so nothing derived is stored twice.
 */
export const RunRecordSchema = z.object({
  run_id: z.string(),
  status: RunStatusSchema,
  operator: z.string(),
  started_at: z.string(),
  finished_at: z.string().nullable(),
  plan: RunPlanSchema,
  problem: z.string().nullable(),
  paused: z.object({ since: z.string(), reason: z.string() }).nullable(),
  figures: FiguresSchema,
  /**
   * Each shard's end, and what it dropped with how much in flight at most: one shard can be starved while another
   * saturates the target.
   */
  shards: z.array(
    z.object({
      status: ShardStatusSchema,
      problem: z.string().nullable(),
      dropped: z.number().int().default(0),
      max_in_flight: z.number().int().default(0),
    }),
  ),
  in_flight: z.number().int(),
  current_rate: z.number(),
  /** Per load zone, at the latest tick: only for a run started with locations. */
  locations: z.array(LocationFiguresSchema).default([]),
  /** When the coordinator last read the shards (epoch ms). */
  last_tick_ms: z.number(),
  /** Consecutive ticks in which some shard did not answer. */
  missed_ticks: z.number().int(),
});
export type RunRecord = z.infer<typeof RunRecordSchema>;
