import type { Config } from "../config/config";
import { outboxWriter } from "../outbox/hand-off";
import { ProposalService } from "../proposals/proposal-service";
import { ProposalStore } from "../proposals/proposal-store";
import { boundedProvider, type ProviderSetup } from "../provider/apply-provider";
import { STUB_PROVIDER } from "../provider/stub-provider";
import { CapacityCoordinator, heldBySearch } from "../runs/capacity-coordinator";
import { planCapacitySearch } from "../runs/capacity-plan";
import { SearchStore } from "../runs/capacity-store";
import { RunCoordinator, type ShardHandle } from "../runs/coordinator";
import type { Location } from "../runs/locations";
import { planRun } from "../runs/plan";
import { RECENT_INTERVALS, RunStore } from "../runs/run-store";
import { shardName } from "../runs/shard-state";
import { D1AccountOrders } from "../store/account-orders";
import { accountDatabase } from "../store/databases";
import { BatchSender } from "../synth/batch-sender";
import { configuredTarget, type OrderApiTarget } from "../synth/order-api-target";
import { type HolderState, SyntheticBudget } from "../synth/order-budget";
import { randomSeed } from "../synth/prng";
import { AuditSealer } from "./audit-sealer";
import { SqlBatchJournal } from "./batch-journal";
import { SqlBudgetLedger } from "./budget-ledger";
import { newBatchId, newRunId, newSearchId } from "./ids";
import { SerialQueue } from "./serial-queue";
import { TaskStore } from "./task-store";

/** A burst of intake orders is sealed in passes at least this far apart. */
const SEAL_INTERVAL_MS = 200;

/**
 * What one account's object works with, built once per instance: the batch
 * journal in its SQLite, the proposal service, the batch sender, the run coordinator,
 * the audit sealer and the synthetic order budget. Batches run one at a time
 * through `batches`.
 */
export interface AccountServices {
  readonly config: Config;
  readonly journal: SqlBatchJournal;
  readonly batches: SerialQueue;
  readonly budget: SyntheticBudget;
  /** The state of the run or search a budget booking is for (`run:<id>`, `search:<id>`). */
  readonly budgetHolder: (holder: string) => HolderState | undefined;
  readonly proposals: ProposalService;
  readonly sender: BatchSender;
  readonly runs: RunCoordinator;
  readonly searches: CapacityCoordinator;
  readonly sealer: AuditSealer;
  /** MCP tasks: handles on the runs and searches above, for the caller that started them. */
  readonly tasks: TaskStore;
}

interface ServiceDeps {
  readonly ctx: DurableObjectState;
  /** Read at call time, not build time: the ORDER_API binding is a way out of the object. */
  readonly env: () => Env;
  readonly account: string;
  readonly config: Config;
  /** The account's queue for proposal transitions. */
  readonly transitions: SerialQueue;
  /** Sets the object's alarm for a traffic run's next tick. */
  readonly scheduleTick: (at: Date, runId: string) => Promise<void>;
  /** Sets the object's alarm for a capacity search's next tick. */
  readonly scheduleSearchTick: (at: Date, searchId: string) => Promise<void>;
  /** Sets the object's alarm for the apply reconciler's next check of a proposal. */
  readonly scheduleCheck: (at: Date, proposalId: string) => Promise<void>;
}

/** The configured external provider, every call bounded by APPLY_PROVIDER_TIMEOUT_MS; null for none. */
function applyProvider(config: Config): ProviderSetup {
  switch (config.applyProvider.kind) {
    case "none":
      return null;
    case "stub":
      return { provider: boundedProvider(STUB_PROVIDER, config.applyProvider.timeoutMs), config: config.applyProvider };
  }
}

export function buildServices({
  ctx,
  env: currentEnv,
  account,
  config,
  transitions,
  scheduleTick,
  scheduleSearchTick,
  scheduleCheck,
}: ServiceDeps): AccountServices {
  const env = currentEnv();
  const storage = ctx.storage.sql;
  const journal = new SqlBatchJournal(storage);
  // A fresh instance runs nothing yet, so whatever is still "running" was cut short.
  journal.markInterrupted();
  // The configured target as seen by `actor`; built at call time, with the binding of that moment.
  const target = (actor: string): OrderApiTarget => configuredTarget(currentEnv(), config, account, actor);
  const sealer = new AuditSealer({
    db: accountDatabase(env, account),
    account,
    storage,
    now: () => new Date(),
    minIntervalMs: SEAL_INTERVAL_MS,
  });
  const approvalUrl = (proposalId: string) => `${config.publicBaseUrl}/approvals/${encodeURIComponent(proposalId)}`;
  // Proposal changes announce themselves through the outbox, handed to the queue after each commit.
  const outbox = outboxWriter({
    config,
    queue: () => currentEnv().OUTBOX_QUEUE,
    db: accountDatabase(env, account),
    approvalUrl,
    defer: (task) => ctx.waitUntil(task),
  });

  const searchStore = new SearchStore(storage);
  const runStore = new RunStore(storage);
  const runUrl = (runId: string) => `${config.publicBaseUrl}/runs/${encodeURIComponent(runId)}`;
  const runs = new RunCoordinator({
    runs: runStore,
    account,
    shard: (runId, index, location) => runShard(currentEnv(), account, runId, index, location),
    maxActive: config.runs.maxActive,
    runUrl,
    plan: (request) => planRun(request, request.seed ?? randomSeed(), config.runs),
    scheduleTick,
    recentIntervals: RECENT_INTERVALS,
    newRunId,
    now: () => Date.now(),
    heldBy: () => {
      const holder = searchStore.running()[0];
      return holder ? { searchId: holder.search_id, refusal: heldBySearch(holder.search_id) } : null;
    },
  });
  return {
    config,
    journal,
    batches: new SerialQueue(),
    budget: new SyntheticBudget(new SqlBudgetLedger(storage)),
    budgetHolder: (holder) => budgetHolderState(runStore, searchStore, holder),
    sealer,
    tasks: new TaskStore(storage),
    runs,
    searches: new CapacityCoordinator({
      searches: searchStore,
      runner: {
        start: (operator, request, searchId) => runs.start(operator, request, searchId),
        record: (runId) => runs.record(runId),
        stop: (runId, operator) => runs.stop(runId, operator),
        running: () => runStore.running().map((run) => run.run_id),
      },
      plan: (request) => planCapacitySearch(request, request.seed ?? randomSeed(), config.runs),
      scheduleTick: scheduleSearchTick,
      searchUrl: (searchId) => `${config.publicBaseUrl}/runs/searches/${encodeURIComponent(searchId)}`,
      runUrl,
      newSearchId,
      now: () => Date.now(),
    }),
    proposals: new ProposalService({
      store: new ProposalStore(storage),
      // Events the proposal service writes are sealed right after, without holding up its answer.
      orders: new D1AccountOrders(
        accountDatabase(env, account),
        account,
        () => new Date(),
        () => void sealer.seal(),
        outbox,
      ),
      ttlMinutes: config.proposalTtlMinutes,
      maxOpen: config.maxOpenProposals,
      now: () => new Date(),
      exclusive: (task) => transitions.run(task),
      approvalUrl,
      fourEyes: config.fourEyes,
      provider: applyProvider(config),
      scheduleCheck,
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

/** A run counts at its pace while it runs; once ended (a stop is immediate), by what it launched. */
function runState(runs: RunStore, runId: string): HolderState | undefined {
  const run = runs.get(runId);
  if (!run) return undefined;
  if (run.status === "running") return { running: true };
  const endedAt = run.finished_at === null ? Date.now() : Date.parse(run.finished_at);
  return { running: false, endedAt, sent: run.figures.launched };
}

function budgetHolderState(runs: RunStore, searches: SearchStore, holder: string): HolderState | undefined {
  const [kind, id = ""] = holder.split(/:(.*)/s);
  if (kind === "run") return runState(runs, id);
  const search = kind === "search" ? searches.get(id) : undefined;
  if (!search) return undefined;
  const steps = search.steps.map((step) => runState(runs, step.run_id));
  if (search.status === "running" || steps.some((step) => step?.running)) return { running: true };
  const sent = steps.reduce((sum, step) => sum + (step && !step.running ? step.sent : 0), 0);
  const endedAt = search.finished_at === null ? Date.now() : Date.parse(search.finished_at);
  return { running: false, endedAt: Math.max(endedAt, ...steps.map((s) => (s && !s.running ? s.endedAt : 0))), sent };
}

/** A run's generator shard, reached by its name: only this object knows a run's id and shard count. */
export function runShard(env: Env, account: string, runId: string, index: number, location?: Location): ShardHandle {
  // The hint places the object when it is first created (in `location`'s region); later gets of it ignore it.
  const id = env.RUN_SHARD.idFromName(shardName(account, runId, index));
  const stub = location === undefined ? env.RUN_SHARD.get(id) : env.RUN_SHARD.get(id, { locationHint: location });
  return {
    start: (spec) => stub.start(spec),
    progress: () => stub.progress(),
    stop: () => stub.stop(),
    forget: () => stub.forget(),
  };
}
