import type { Config } from "../config/config";
import type { Result } from "../core/errors";
import { ProposalDesk } from "../proposals/desk";
import { ProposalStore } from "../proposals/store";
import { D1AccountOrders } from "../store/account-orders";
import { BatchSender } from "../synth/batch-sender";
import { orderApiTarget, TARGET_TIMEOUT_MS, type OrderApiTarget } from "../synth/order-api-target";
import { randomSeed } from "../synth/prng";
import { planRun, type RunPlan, type RunRequest } from "../synth/run-plan";
import { TrafficRunner } from "../synth/traffic-run";
import { AuditSealer } from "./audit-sealer";
import { SqlBatchJournal } from "./batch-journal";
import { newBatchId, newRunId } from "./ids";
import { RECENT_INTERVALS, RunStore } from "./run-store";
import type { SerialQueue } from "./serial-queue";

/** A burst of intake orders is sealed in passes at least this far apart. */
const SEAL_INTERVAL_MS = 200;

/**
 * What one account's object works with, built once per instance: the batch
 * journal and run store in its SQLite, the proposal desk, the batch sender,
 * the run engine and the audit sealer.
 */
export interface AccountServices {
  readonly config: Config;
  readonly journal: SqlBatchJournal;
  readonly runs: RunStore;
  readonly desk: ProposalDesk;
  readonly sender: BatchSender;
  readonly runner: TrafficRunner;
  readonly sealer: AuditSealer;
  /** The ORDER_API target as seen by `actor`; read at call time, since the binding is the only way out. */
  readonly target: (actor: string) => OrderApiTarget;
  /** Checks a run request against the caps, choosing a seed when none was given. */
  readonly planRun: (request: RunRequest, caps: Config["runs"]) => Result<RunPlan>;
  /** How many intervals a tool answer shows. */
  readonly recentIntervals: number;
}

export interface ServiceDeps {
  readonly ctx: DurableObjectState;
  /** Read at call time, not build time: the ORDER_API binding is the only way out of the object. */
  readonly env: () => Env;
  readonly account: string;
  readonly config: Config;
  /** The account's queue for proposal transitions. */
  readonly transitions: SerialQueue;
}

export function buildServices({ ctx, env: currentEnv, account, config, transitions }: ServiceDeps): AccountServices {
  const env = currentEnv();
  const storage = ctx.storage.sql;
  const journal = new SqlBatchJournal(storage);
  // A fresh instance runs nothing yet, so whatever is still "running" was cut short.
  journal.markInterrupted();
  const target = (actor: string) => orderApiTarget(currentEnv().ORDER_API, account, TARGET_TIMEOUT_MS, actor);
  const sealer = new AuditSealer({ db: env.DB, account, storage, now: () => new Date(), minIntervalMs: SEAL_INTERVAL_MS });

  return {
    config,
    journal,
    runs: new RunStore(storage),
    sealer,
    target,
    recentIntervals: RECENT_INTERVALS,
    planRun: (request, caps) => planRun(request, request.seed ?? randomSeed(), caps),
    runner: new TrafficRunner({ now: () => Date.now(), newRunId, concurrency: config.sendConcurrency, maxPauseSeconds: config.runs.pauseSeconds }),
    desk: new ProposalDesk({
      store: new ProposalStore(storage),
      // Events the desk writes are sealed right after, without holding up its answer.
      orders: new D1AccountOrders(env.DB, account, () => new Date(), () => void sealer.seal()),
      ttlMinutes: config.proposalTtlMinutes,
      maxOpen: config.maxOpenProposals,
      now: () => new Date(),
      exclusive: (task) => transitions.run(task),
      approvalUrl: (proposalId) => `${config.publicBaseUrl}/approvals/${encodeURIComponent(proposalId)}`,
    }),
    sender: new BatchSender({
      target,
      maxBatch: config.maxBatch,
      concurrency: config.sendConcurrency,
      journal,
      newBatchId,
      now: () => new Date(),
    }),
  };
}
