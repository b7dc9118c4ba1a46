import { Agent } from "agents";
import type { Approver, Config, Operator } from "../config/config";
import { fail, ok, type Result } from "../core/errors";
import type { AddressInput } from "../orders/address";
import type { OrderRecord } from "../orders/order-record";
import type { ConfirmResult, ProposalView } from "../proposals/schemas";
import type { Decision } from "../proposals/decision";
import type { ChainHead } from "../audit/chain";
import type { SendRequest } from "../synth/batch-sender";
import type { BatchRecord, BatchSummary } from "../synth/batch-summary";
import type { Comparison } from "../runs/compare";
import type { RunRequest } from "../runs/plan";
import type { RunRecord } from "../runs/record";
import type { RunDetail, RunInterval, RunSummary } from "../runs/schemas";
import { shardName } from "../runs/shard-state";
import { runOrdersPerMinute, SyntheticBudget, type BudgetAsk } from "../synth/order-budget";
import { ordered, type ProgressListener } from "./ordered-progress";
import { SerialQueue } from "./serial-queue";
import type { AccountServices } from "./services";
import { migrateAccountStorage } from "./storage-schema";


/**
 * One AccountAgent per account, named by the account id. It holds exactly
 * what needs one writer per account: the proposals and their transitions,
 * the generator state (the batch journal) and the traffic runs, which its
 * alarms drive (run-desk.ts). Batches run one at a time
 * through `batches`; every proposal transition runs one at a time through
 * `transitions`. Reads of orders never come here: the Worker reads D1 itself.
 */
export class AccountAgent extends Agent<Env> {
  private readonly batches = new SerialQueue();
  private readonly transitions = new SerialQueue();
  private readonly budget = new SyntheticBudget();
  private built: Promise<AccountServices> | undefined;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    migrateAccountStorage(ctx.storage);
  }

  // ------------------------------------------------------- operator side (MCP)

  async sendOrders(caller: Operator, request: SendRequest, onProgress?: ProgressListener): Promise<Result<BatchSummary>> {
    const services = await this.servicesFor(caller.account);
    if (!services.ok) return services;
    const progress = onProgress && ordered(onProgress);
    const result = await this.batches.run(() => services.value.sender.send(request, caller.operator, progress?.report));
    await progress?.drained();
    return result;
  }

  async recentBatches(caller: Operator): Promise<Result<BatchRecord[]>> {
    const services = await this.servicesFor(caller.account);
    return services.ok ? ok(services.value.journal.recent()) : services;
  }

  async proposeResolution(caller: Operator, orderId: string): Promise<Result<ProposalView>> {
    const services = await this.servicesFor(caller.account);
    return services.ok ? services.value.desk.proposeResolution(orderId, caller.operator) : services;
  }

  async prepareAddressChange(caller: Operator, orderId: string, address: AddressInput): Promise<Result<ProposalView>> {
    const services = await this.servicesFor(caller.account);
    return services.ok ? services.value.desk.prepareAddressChange(orderId, address, caller.operator) : services;
  }

  async getProposal(caller: Operator, proposalId: string): Promise<Result<ProposalView>> {
    const services = await this.servicesFor(caller.account);
    return services.ok ? services.value.desk.getProposal(proposalId) : services;
  }

  /** Holds the call until a person decides the proposal or `timeoutMs` passes; see ProposalDesk.awaitDecision. */
  async waitForDecision(caller: Operator, proposalId: string, timeoutMs: number): Promise<Result<{ proposal: ProposalView; waitedMs: number }>> {
    const services = await this.servicesFor(caller.account);
    return services.ok ? services.value.desk.awaitDecision(proposalId, timeoutMs) : services;
  }

  async confirmProposal(caller: Operator, proposalId: string): Promise<Result<ConfirmResult>> {
    const services = await this.servicesFor(caller.account);
    return services.ok ? services.value.desk.confirm(proposalId, caller.operator) : services;
  }

  /**
   * Meets a batch or a run with the account's synthetic order budget, counting
   * the runs running now at their pace, and books a batch's orders. The
   * caller's configuration sets the budget, as it decides every other limit.
   */
  async chargeSyntheticBudget(caller: Operator, ask: BudgetAsk, perMinute: number): Promise<Result<void>> {
    const services = await this.servicesFor(caller.account);
    if (!services.ok) return services;
    const running = services.value.runs.recent().filter((run) => run.status === "running");
    const runsPerMinute = running.reduce((sum, run) => sum + runOrdersPerMinute(run.plan), 0);
    return this.budget.charge(ask, { perMinute, runsPerMinute }, Date.now());
  }

  // ------------------------------------------------------------ traffic runs

  async startTrafficRun(caller: Operator, request: RunRequest): Promise<Result<RunSummary>> {
    const services = await this.servicesFor(caller.account);
    return services.ok ? services.value.runs.start(caller.operator, request) : services;
  }

  async getTrafficRun(caller: Operator, runId: string): Promise<Result<RunDetail>> {
    const services = await this.servicesFor(caller.account);
    return services.ok ? services.value.runs.get(runId) : services;
  }

  async stopTrafficRun(caller: Operator, runId: string): Promise<Result<RunSummary>> {
    const services = await this.servicesFor(caller.account);
    return services.ok ? services.value.runs.stop(runId, caller.operator) : services;
  }

  async compareTrafficRuns(caller: Operator, runId: string, baselineId: string, tolerancePercent: number): Promise<Result<Comparison>> {
    const services = await this.servicesFor(caller.account);
    return services.ok ? services.value.runs.compare(runId, baselineId, tolerancePercent) : services;
  }

  /** The whole stored run, histograms included: the resource's and the export's view. */
  async trafficRunRecord(caller: { readonly account: string }, runId: string): Promise<Result<{ summary: RunSummary; record: RunRecord }>> {
    const services = await this.servicesFor(caller.account);
    return services.ok ? services.value.runs.record(runId) : services;
  }

  /** Every interval of a run, oldest first: for the CSV export. */
  async trafficRunIntervals(approver: Approver, runId: string): Promise<Result<RunInterval[]>> {
    const services = await this.servicesFor(approver.account);
    if (!services.ok) return services;
    const intervals = services.value.runs.intervals(runId);
    return intervals.ok ? ok([...intervals.value]) : intervals;
  }

  async recentRuns(caller: Operator): Promise<Result<RunSummary[]>> {
    const services = await this.servicesFor(caller.account);
    return services.ok ? ok(services.value.runs.recent()) : services;
  }

  /** The run page's view, for the chart. */
  async runForApprover(approver: Approver, runId: string): Promise<Result<RunDetail>> {
    const services = await this.servicesFor(approver.account);
    return services.ok ? services.value.runs.chart(runId) : services;
  }

  /**
   * One tick of a run's coordinator, called by the Agent's scheduler from the
   * object's alarm: it reads the run's shards (which send the orders), adds
   * their figures up and decides whether the run goes on. The next tick is
   * scheduled only after this one is persisted. A tick that cannot go on (an
   * invalid configuration, an error) ends the run `failed`: left `running`
   * with no next alarm, it would hold the account's run slot forever.
   */
  async runTick(payload: { runId: string }): Promise<void> {
    try {
      const config = await this.loadConfig();
      if (!config.ok) {
        await this.failRun(payload.runId, `the server's configuration is not valid, so the run cannot go on (${config.error.message}); fix it, then start the run again`);
        return;
      }
      await (await this.services(config.value)).runs.tick(payload.runId);
    } catch (error) {
      console.error(`traffic run ${payload.runId} of account ${this.name} failed in a tick:`, error);
      await this.failRun(
        payload.runId,
        "the run stopped on an unexpected error in the server; the server log has the details. Start it again with the same seed to continue: orders already sent are answered 200 and not duplicated.",
      );
    }
  }

  /**
   * Loaded on demand: this path runs without services when the configuration
   * is what broke. The run's shards are told to stop by name, without
   * reading the run through its schema, which may be what failed.
   */
  private async failRun(runId: string, problem: string): Promise<void> {
    const { RunStore } = await import("../runs/store");
    const store = new RunStore(this.ctx.storage.sql);
    if (!store.fail(runId, problem, new Date())) return;
    const shards = this.ctx.storage.sql.exec<{ n: number | null }>("SELECT json_extract(state, '$.plan.shards') AS n FROM runs WHERE run_id = ?", runId).toArray()[0]?.n ?? 1;
    await Promise.allSettled(
      Array.from({ length: shards }, (_, index) => this.env.RUN_SHARD.get(this.env.RUN_SHARD.idFromName(shardName(this.name, runId, index))).stop()),
    );
  }

  /**
   * On every wake: a running run whose next tick is not scheduled (its alarm
   * was lost) gets one now, so no run is left hanging. The runs are found with
   * one query on the status index: a wake with nothing running, the usual case,
   * builds no services.
   */
  override async onStart(): Promise<void> {
    const running = this.ctx.storage.sql.exec<{ run_id: string }>("SELECT run_id FROM runs WHERE status = 'running'").toArray();
    if (running.length === 0) return;
    const scheduled = new Set(
      (await this.listSchedules())
        .filter((schedule) => schedule.callback === "runTick")
        .map((schedule) => (schedule.payload as { runId?: string } | undefined)?.runId),
    );
    for (const { run_id: runId } of running) {
      if (!scheduled.has(runId)) await this.schedule(new Date(), "runTick", { runId });
    }
  }

  // ------------------------------------------------- approver side (the app)

  async reviewProposal(approver: Approver, proposalId: string): Promise<Result<{ proposal: ProposalView; order: OrderRecord | null }>> {
    const services = await this.servicesFor(approver.account);
    return services.ok ? services.value.desk.review(proposalId) : services;
  }

  async decideProposal(approver: Approver, proposalId: string, decision: Decision): Promise<Result<ProposalView>> {
    const services = await this.servicesFor(approver.account);
    return services.ok ? services.value.desk.decide(proposalId, decision, approver) : services;
  }

  async pendingProposals(approver: Approver): Promise<Result<ProposalView[]>> {
    const services = await this.servicesFor(approver.account);
    return services.ok ? ok(await services.value.desk.pending()) : services;
  }

  // ------------------------------------------------------------- audit chain

  /**
   * Seals every audit event of the account written so far into its hash
   * chain and answers the head. Writers anywhere call it after writing; the
   * export calls it first, so what it streams is sealed.
   */
  async sealAuditTrail(caller: { readonly account: string }): Promise<Result<ChainHead | null>> {
    const services = await this.servicesFor(caller.account);
    return services.ok ? services.value.sealer.seal() : services;
  }

  /**
   * Starts a seal pass and answers at once, without waiting for it: what the
   * intake API calls after writing events. The pass runs here, in the object,
   * so no intake request waits on a promise that another request created: the
   * Workers runtime ties I/O to the request that started it.
   */
  async requestAuditSeal(caller: { readonly account: string }): Promise<Result<null>> {
    const services = await this.servicesFor(caller.account);
    if (!services.ok) return services;
    void services.value.sealer.seal();
    return ok(null);
  }

  // ------------------------------------------------------------------ wiring

  /**
   * The preamble of every RPC entry: start the Agent (native RPC bypasses its
   * fetch entry point, which would), read the config, and check once more that
   * the caller's account is this object's. Services are built on first use and
   * then kept for the life of the instance.
   */
  private async servicesFor(account: string): Promise<Result<AccountServices>> {
    await this.lifecycle.start();
    const config = await this.loadConfig();
    if (!config.ok) return config;
    if (account !== this.name) return fail("forbidden", "this credential belongs to a different account");
    return ok(await this.services(config.value));
  }

  /**
   * The config module (and zod, which its schemas need) loads on the first
   * call, not when the isolate starts: this class is exported from the
   * Worker's entry, so whatever it imports statically every cold start pays.
   */
  private async loadConfig(): Promise<Result<Config>> {
    const { loadConfig } = await import("../config/config");
    return loadConfig(this.env);
  }

  /**
   * Built on first use and kept for the life of the instance. Loaded with a
   * dynamic import: the Worker's cold start, which also serves /health and
   * /api, does not evaluate the proposal, batch and run modules.
   */
  private services(config: Config): Promise<AccountServices> {
    this.built ??= import("./services").then(({ buildServices }) =>
      buildServices({
        ctx: this.ctx,
        env: () => this.env,
        account: this.name,
        config,
        transitions: this.transitions,
        scheduleTick: async (at, runId) => void (await this.schedule(at, "runTick", { runId })),
      }),
    );
    return this.built;
  }
}

// The bundle does not keep function names (keep_names = false in wrangler.toml),
// and agents names the class in its log lines and lifecycle records.
Object.defineProperty(AccountAgent, "name", { value: "AccountAgent" });
