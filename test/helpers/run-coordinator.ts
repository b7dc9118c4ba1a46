/**
 * A run's coordinator (the RunCoordinator) over the account object's real SQLite,
 * with shards that run their pumps here on the virtual clock instead of in
 * objects of their own. `targetOf` gives each shard its order API.
 */

import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { getAgentByName } from "agents";
import { referenceData } from "../../src/orders/reference-data";
import { RunCoordinator, type ShardHandle } from "../../src/runs/coordinator";
import { planRun, type RunCaps } from "../../src/runs/plan";
import { ShardPump } from "../../src/runs/pump";
import { RunStore } from "../../src/runs/run-store";
import type { ShardProgress, ShardState } from "../../src/runs/shard-state";
import type { OrderApiTarget } from "../../src/synth/order-api-target";
import { TEST_CAPS } from "./run-fakes";
import type { VirtualClock } from "./virtual-clock";

export interface CoordinatorRig {
  readonly coordinator: RunCoordinator;
  readonly store: RunStore;
  /** The object's own SQLite, for other stores beside the runs'. */
  readonly sql: SqlStorage;
  /** Shards whose progress() throws, as a lost object would. */
  readonly silent: Set<number>;
  /** The location hint each shard was reached with, by index. */
  readonly hints: Map<number, string | undefined>;
  /** Ticks the coordinator every second until the run has ended and its shards settled. */
  drive(runId: string, limitSeconds?: number): Promise<void>;
}

export async function withRunCoordinator<T>(
  clock: VirtualClock,
  targetOf: (shard: number) => OrderApiTarget,
  body: (rig: CoordinatorRig) => Promise<T>,
  caps: Partial<RunCaps> = {},
): Promise<T> {
  const stub = await getAgentByName(env.ACCOUNT_AGENT, `coordinator-${crypto.randomUUID()}`);
  return runInDurableObject(stub, async (_instance, state) => {
    const store = new RunStore(state.storage.sql);
    const silent = new Set<number>();
    const shards = new Map<number, { pump: ShardPump; final?: ShardState; stopped: boolean; last: ShardState }>();
    const hints = new Map<number, string | undefined>();
    const handle = (_runId: string, index: number, location?: string): ShardHandle => ({
      async start(spec) {
        hints.set(index, location);
        const initial = ShardPump.initialState(spec);
        const entry: { pump: ShardPump; final?: ShardState; stopped: boolean; last: ShardState } = {
          pump: undefined as never,
          stopped: false,
          last: initial,
        };
        entry.pump = new ShardPump(spec, {
          clock,
          target: targetOf(index),
          reference: referenceData,
          maxPauseSeconds: 5,
          checkpoint: (next) => {
            entry.last = next;
          },
          stopped: () => entry.stopped,
        });
        shards.set(index, entry);
        void entry.pump.run(initial).then((final) => (entry.final = final));
      },
      async progress(): Promise<ShardProgress | null> {
        if (silent.has(index)) throw new Error("shard lost");
        const entry = shards.get(index);
        if (!entry) return null;
        return entry.pump.snapshot() ?? { state: entry.final ?? entry.last, in_flight: 0 };
      },
      async stop() {
        const entry = shards.get(index);
        if (entry) entry.stopped = true;
      },
      async forget() {},
    });
    const coordinator = new RunCoordinator({
      runs: store,
      account: "acme",
      shard: handle,
      maxActive: 1,
      runUrl: (runId) => `http://localhost/runs/${runId}`,
      plan: (request) => planRun(request, request.seed ?? 4242, { ...TEST_CAPS, ...caps }),
      scheduleTick: async () => undefined,
      recentIntervals: 30,
      newRunId: () => `R-${crypto.randomUUID().slice(0, 8)}`,
      now: () => clock.now(),
    });
    const drive = async (runId: string, limitSeconds = 600) => {
      await clock.run(
        (async () => {
          for (let s = 0; s < limitSeconds; s++) {
            await clock.sleep(1000);
            await coordinator.tick(runId);
            const record = store.get(runId);
            if (record && record.status !== "running" && record.shards.every((shard) => shard.status !== "running"))
              return;
          }
        })(),
      );
    };
    return body({ coordinator, store, sql: state.storage.sql, silent, hints, drive });
  });
}
