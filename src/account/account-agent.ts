import { Agent } from "agents";
import type { Approver, Config, Operator } from "../config/config";
import { fail, ok, type Result } from "../core/errors";
import type { AddressInput } from "../orders/address";
import type { OrderRecord } from "../orders/order-record";
import type { ConfirmResult, ProposalView } from "../proposals/schemas";
import type { Decision } from "../proposals/decision";
import type { ChainHead } from "../store/audit-chain";
import type { SendRequest } from "../synth/batch-sender";
import type { BatchRecord, BatchSummary } from "../synth/batch-summary";
import type { RunRequest } from "../synth/run-plan";
import type { RunDetail, RunSummary } from "../synth/run-schemas";
import type { RunState } from "../synth/traffic-run";
import { SerialQueue } from "./serial-queue";
import type { AccountServices } from "./services";
import { migrateAccountStorage } from "./storage-schema";

/** Called by the account object with each answered order while a batch runs. */
export type ProgressListener = (sent: number, total: number) => void | Promise<void>;

const RUN_NOT_FOUND = "traffic run not found; runs are only visible to the account that started them (synthetic://runs lists yours)";

/**
 * One AccountAgent per account, named by the account id. It holds exactly
 * what needs one writer per account: the proposals and their transitions,
 * and the generator state (the batch journal). Batches run one at a time
 * through `batches`; every proposal transition runs one at a time through
 * `transitions`. Reads of orders never come here: the Worker reads D1 itself.
 */
export class AccountAgent extends Agent<Env> {
  private readonly batches = new SerialQueue();
  private readonly transitions = new SerialQueue();
  private built: Promise<AccountServices> | undefined;
  /** Runs stopped by stopTrafficRun while a tick may be sending; the tick clears its run's entry. */
  private readonly stopping = new Set<string>();

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

  async confirmProposal(caller: Operator, proposalId: string): Promise<Result<ConfirmResult>> {
    const services = await this.servicesFor(caller.account);
    return services.ok ? services.value.desk.confirm(proposalId, caller.operator) : services;
  }

  // ------------------------------------------------------------ traffic runs

  async startTrafficRun(caller: Operator, request: RunRequest): Promise<Result<RunSummary>> {
    const services = await this.servicesFor(caller.account);
    if (!services.ok) return services;
    const { config, runner, runs, planRun } = services.value;
    const plan = planRun(request, config.runs);
    if (!plan.ok) return plan;
    // No await between the count and the insert: two starts cannot both pass the check.
    const active = runs.running();
    if (active.length >= config.runs.maxActive) {
      const ids = active.map((run) => run.summary.run_id).join(", ");
      return fail(
        "conflict",
        `run ${ids} is still running and this account allows ${config.runs.maxActive} at a time (MAX_ACTIVE_RUNS); stop it with stop_traffic_run or wait for it to finish`,
      );
    }
    const state = runner.newState(plan.value, caller.operator);
    runs.insert(state);
    await this.schedule(new Date(), "runTick", { runId: state.summary.run_id });
    return ok(this.summaryOf(state, config));
  }

  async getTrafficRun(caller: Operator, runId: string): Promise<Result<RunDetail>> {
    const services = await this.servicesFor(caller.account);
    if (!services.ok) return services;
    return this.runDetail(services.value, runId, true);
  }

  async stopTrafficRun(caller: Operator, runId: string): Promise<Result<RunSummary>> {
    const services = await this.servicesFor(caller.account);
    if (!services.ok) return services;
    const { runs } = services.value;
    const state = runs.get(runId);
    if (!state) return fail("not_found", RUN_NOT_FOUND);
    if (state.summary.status !== "running") return ok(this.summaryOf(state, services.value.config));
    const stopped: RunState = {
      ...state,
      summary: { ...state.summary, status: "stopped", finished_at: new Date().toISOString(), paused: null, current_rate: 0, problem: `stopped by ${caller.operator}` },
    };
    runs.update(stopped, "running");
    // A tick in flight sees the flag before its next send.
    this.stopping.add(runId);
    services.value.runner.forget(runId);
    return ok(this.summaryOf(runs.get(runId) ?? stopped, services.value.config));
  }

  async recentRuns(caller: Operator): Promise<Result<RunSummary[]>> {
    const services = await this.servicesFor(caller.account);
    if (!services.ok) return services;
    return ok(services.value.runs.recent().map((state) => this.summaryOf(state, services.value.config)));
  }

  /** The run page's view: every interval, for the chart. */
  async runForApprover(approver: Approver, runId: string): Promise<Result<RunDetail>> {
    const services = await this.servicesFor(approver.account);
    return services.ok ? this.runDetail(services.value, runId, false) : services;
  }

  /**
   * One tick of a run, called by the Agent's scheduler from the object's alarm,
   * so runs go on after the MCP call returned and after an eviction or restart.
   * The next tick is scheduled only after this one is persisted. A tick that
   * cannot go on (an invalid configuration, an error) ends the run `failed`:
   * left `running` with no next alarm, it would hold the account's run slot forever.
   */
  async runTick(payload: { runId: string }): Promise<void> {
    try {
      const config = await this.loadConfig();
      if (!config.ok) {
        await this.failRun(payload.runId, `the server's configuration is not valid, so the run cannot go on (${config.error.message}); fix it, then start the run again`);
        return;
      }
      await this.tickRun(payload.runId, await this.services(config.value));
    } catch (error) {
      console.error(`traffic run ${payload.runId} of account ${this.name} failed in a tick:`, error);
      await this.failRun(
        payload.runId,
        "the run stopped on an unexpected error in the server; the server log has the details. Start it again with the same seed to continue: orders already sent are answered 200 and not duplicated.",
      );
    }
  }

  private async tickRun(runId: string, { runner, runs, target }: AccountServices): Promise<void> {
    const state = runs.get(runId);
    if (!state || state.summary.status !== "running") {
      this.stopping.delete(runId);
      return;
    }
    // Asked before every send: the flag is set by stopTrafficRun; the status column (not the whole state) covers any other ending.
    const stopped = () => this.stopping.has(runId) || runs.status(runId) !== "running";
    const outcome = await runner.tick(state, target(`${state.summary.operator} via start_traffic_run`), stopped);
    const stored = runs.get(runId);
    if (!stored) return;
    if (outcome.interval) runs.addInterval(runId, outcome.interval);
    if (stored.summary.status !== "running") {
      // Stopped while this tick was sending: keep the stop, count what the tick sent.
      const { status, finished_at, problem } = stored.summary;
      runs.update({ ...outcome.state, summary: { ...outcome.state.summary, status, finished_at, problem, paused: null, current_rate: 0 } }, status);
      this.stopping.delete(runId);
      return;
    }
    runs.update(outcome.state, "running");
    if (outcome.nextTickMs !== null) await this.schedule(new Date(outcome.nextTickMs), "runTick", { runId });
  }

  /** Loaded on demand: this path runs without services when the configuration is what broke. */
  private async failRun(runId: string, problem: string): Promise<void> {
    const { RunStore } = await import("./run-store");
    new RunStore(this.ctx.storage.sql).fail(runId, problem, new Date());
    (await this.built)?.runner.forget(runId);
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

  private summaryOf(state: RunState, config: Config): RunSummary {
    return { ...state.summary, run_url: `${config.publicBaseUrl}/runs/${encodeURIComponent(state.summary.run_id)}` };
  }

  /** `recent`: the latest intervals only (a tool answer), instead of all of them (the chart). */
  private runDetail(services: AccountServices, runId: string, recent: boolean): Result<RunDetail> {
    const state = services.runs.get(runId);
    if (!state) return fail("not_found", RUN_NOT_FOUND);
    return ok({ ...this.summaryOf(state, services.config), intervals: services.runs.intervals(runId, recent ? services.recentIntervals : undefined) });
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
      buildServices({ ctx: this.ctx, env: () => this.env, account: this.name, config, transitions: this.transitions }),
    );
    return this.built;
  }
}

// The bundle does not keep function names (keep_names = false in wrangler.toml),
// and agents names the class in its log lines and lifecycle records.
Object.defineProperty(AccountAgent, "name", { value: "AccountAgent" });

/**
 * Progress reports leave in the order they were made, one at a time, without
 * holding up the batch; the caller waits for the last one before answering.
 */
function ordered(listener: ProgressListener): { report: (sent: number, total: number) => Promise<void>; drained: () => Promise<void> } {
  let chain: Promise<void> = Promise.resolve();
  return {
    report: (sent, total) => {
      chain = chain.then(() => listener(sent, total)).catch(() => undefined);
      return chain;
    },
    drained: () => chain,
  };
}
