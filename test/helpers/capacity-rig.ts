/**
 * A capacity search on the virtual clock: the CapacityCoordinator over the RunCoordinator
 * of run-coordinator.ts (shards pumping here, not in objects of their own), driven
 * a second at a time as the object's alarms would, and a simulated order
 * API with a known capacity.
 */
import type { Result } from "../../src/core/errors";
import type { OrderRequest } from "../../src/orders/intake-schemas";
import { CapacityCoordinator } from "../../src/runs/capacity-coordinator";
import { planCapacitySearch } from "../../src/runs/capacity-plan";
import { SearchStore } from "../../src/runs/capacity-store";
import type { RunCaps } from "../../src/runs/plan";
import type { OrderApiTarget, PostedOrder, PostOptions } from "../../src/synth/order-api-target";
import { type CoordinatorRig, withRunCoordinator } from "./run-coordinator";
import { ClockedApi, TEST_CAPS } from "./run-fakes";
import type { VirtualClock } from "./virtual-clock";

/**
 * An order API that serves at most `workers` orders at once, `serviceMs`
 * each, the rest waiting first come first served: a capacity of
 * workers × 1000 / serviceMs orders a second (4 × 50 ms: 80/s), as the
 * reference target's schedule (c).
 */
export class QueueApi extends ClockedApi implements OrderApiTarget {
  private free: number;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly queueClock: VirtualClock,
    workers = 4,
    private readonly serviceMs = 50,
  ) {
    super(queueClock, () => 0);
    this.free = workers;
  }

  override async postOrder(order: OrderRequest, options: PostOptions = {}): Promise<Result<PostedOrder>> {
    options.onSent?.();
    if (this.free > 0) this.free--;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    await this.queueClock.sleep(this.serviceMs);
    const next = this.waiting.shift();
    if (next) next();
    else this.free++;
    // Answered as the intake API would, once served.
    return super.postOrder(order, {});
  }
}

export interface SearchRig extends CoordinatorRig {
  readonly searches: CapacityCoordinator;
  readonly searchStore: SearchStore;
  /** Ticks the search and its step runs once a virtual second until the search has ended. */
  driveSearch(searchId: string, limitSeconds?: number): Promise<void>;
}

export async function withSearchDesk<T>(
  clock: VirtualClock,
  target: OrderApiTarget,
  body: (rig: SearchRig) => Promise<T>,
  caps: Partial<RunCaps> = {},
  /** Awaited once a step's run has started, before the search hears of it: where a stop can fall in between. */
  afterStepStarted: () => Promise<void> = async () => undefined,
): Promise<T> {
  return withRunCoordinator(
    clock,
    () => target,
    async (rig) => {
      const searchStore = new SearchStore(rig.sql);
      const searches = new CapacityCoordinator({
        searches: searchStore,
        runner: {
          start: async (operator, request, searchId) => {
            const started = await rig.coordinator.start(operator, request, searchId);
            await afterStepStarted();
            return started;
          },
          record: (runId) => rig.coordinator.record(runId),
          stop: (runId, operator) => rig.coordinator.stop(runId, operator),
          running: () => rig.store.running().map((run) => run.run_id),
        },
        plan: (request) => planCapacitySearch(request, request.seed ?? 7, { ...TEST_CAPS, ...caps }),
        scheduleTick: async () => undefined,
        searchUrl: (searchId) => `http://localhost/runs/searches/${searchId}`,
        runUrl: (runId) => `http://localhost/runs/${runId}`,
        newSearchId: () => `S-${crypto.randomUUID().slice(0, 8)}`,
        now: () => clock.now(),
      });
      const driveSearch = async (searchId: string, limitSeconds = 3600) => {
        await clock.run(
          (async () => {
            for (let s = 0; s < limitSeconds; s++) {
              await clock.sleep(1000);
              for (const step of searchStore.get(searchId)?.steps ?? []) {
                const run = rig.store.get(step.run_id);
                if (run && (run.status === "running" || run.shards.some((shard) => shard.status === "running")))
                  await rig.coordinator.tick(step.run_id);
              }
              await searches.tick(searchId);
              if (searchStore.get(searchId)?.status !== "running") return;
            }
          })(),
        );
      };
      return body({ ...rig, searches, searchStore, driveSearch });
    },
    caps,
  );
}
