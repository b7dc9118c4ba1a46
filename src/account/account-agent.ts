import { Agent } from "agents";
import type { Config } from "../config/config";
import { fail, ok, type Result } from "../core/errors";
import { type AccountCaller, type AccountFace, FOREIGN_CALLER_MESSAGE, RPC_CALLS } from "./account-calls";
import { SerialQueue } from "./serial-queue";
import type { AccountServices } from "./services";
import { migrateAccountStorage } from "./storage-schema";

/**
 * One AccountAgent per account, named by the account id. It holds exactly
 * what needs one writer per account: the proposals and their transitions,
 * the generator state (the batch journal) and the traffic runs, which its
 * alarms drive (runs/coordinator.ts). Every proposal transition runs one at a time
 * through `transitions`. Reads of orders never come here: the Worker reads
 * D1 itself.
 *
 * Its RPC methods are the entries of account-calls.ts, installed below, each
 * behind the same check of the caller's account; the interface of the same
 * name gives them their types.
 */
export interface AccountAgent extends AccountFace {}

// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the static block below installs these methods on the prototype; the interface above only types them.
export class AccountAgent extends Agent<Env> {
  private readonly transitions = new SerialQueue();
  private built: Promise<AccountServices> | undefined;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    migrateAccountStorage(ctx.storage);
  }

  static {
    // Prototype methods, as workerd's RPC requires: own properties of an instance are not callable over RPC.
    const entries = Object.entries(RPC_CALLS) as [
      string,
      (services: AccountServices, caller: AccountCaller, ...args: unknown[]) => unknown,
    ][];
    for (const [name, call] of entries) {
      Object.defineProperty(AccountAgent.prototype, name, {
        configurable: true,
        writable: true,
        value: async function (this: AccountAgent, caller: AccountCaller, ...args: unknown[]) {
          const services = await this.servicesFor(caller.account);
          return services.ok ? call(services.value, caller, ...args) : services;
        },
      });
    }
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
        await this.failRun(
          payload.runId,
          `the server's configuration is not valid, so the run cannot go on (${config.error.message}); fix it, then start the run again`,
        );
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
   * One tick of a capacity search (runs/capacity-coordinator.ts), from the object's
   * alarm like a run's: it folds a settled step in and starts the next one.
   * A tick that cannot go on ends the search `failed`, so it does not hold
   * the account's traffic forever; its current step's run ends by itself.
   */
  async searchTick(payload: { searchId: string }): Promise<void> {
    try {
      const config = await this.loadConfig();
      if (!config.ok) {
        await this.failSearch(
          payload.searchId,
          `the server's configuration is not valid, so the search cannot go on (${config.error.message}); fix it, then start the search again`,
        );
        return;
      }
      await (await this.services(config.value)).searches.tick(payload.searchId);
    } catch (error) {
      console.error(`capacity search ${payload.searchId} of account ${this.name} failed in a tick:`, error);
      await this.failSearch(
        payload.searchId,
        "the search stopped on an unexpected error in the server; the server log has the details. Start it again.",
      );
    }
  }

  /** Without services or the search's schema, either of which may be what broke. */
  private async failSearch(searchId: string, problem: string): Promise<void> {
    const { SearchStore } = await import("../runs/capacity-store");
    new SearchStore(this.ctx.storage.sql).fail(searchId, problem, new Date());
  }

  /**
   * The apply reconciler, called by the Agent's scheduler from the object's
   * alarm: asks the external provider what became of a proposal left
   * `applying` and settles it (proposals/confirmation.ts). Its next check is
   * armed before it calls out, so an error here is logged and the next
   * check still comes.
   */
  async reconcileApply(payload: { proposalId: string }): Promise<void> {
    try {
      const config = await this.loadConfig();
      if (!config.ok) {
        console.error(
          `the apply reconciler cannot check proposal ${payload.proposalId} of account ${this.name}: ${config.error.message}`,
        );
        return;
      }
      await (await this.services(config.value)).proposals.reconcileApply(payload.proposalId);
    } catch (error) {
      console.error(`the apply reconciler failed on proposal ${payload.proposalId} of account ${this.name}:`, error);
    }
  }

  /**
   * Loaded on demand: this path runs without services when the configuration
   * is what broke, and the run modules' zod schemas would otherwise be built
   * at every cold start (this class is exported from the Worker's entry). The
   * run's shards are told to stop by name, without reading the run through
   * its schema, which may be what failed.
   */
  private async failRun(runId: string, problem: string): Promise<void> {
    const [{ RunStore }, { shardName }] = await Promise.all([
      import("../runs/run-store"),
      import("../runs/shard-state"),
    ]);
    const store = new RunStore(this.ctx.storage.sql);
    if (!store.fail(runId, problem, new Date())) return;
    const shards =
      this.ctx.storage.sql
        .exec<{ n: number | null }>(
          "SELECT json_extract(state, '$.plan.shards') AS n FROM runs WHERE run_id = ?",
          runId,
        )
        .toArray()[0]?.n ?? 1;
    await Promise.allSettled(
      Array.from({ length: shards }, (_, index) =>
        this.env.RUN_SHARD.get(this.env.RUN_SHARD.idFromName(shardName(this.name, runId, index))).stop(),
      ),
    );
  }

  /**
   * On every wake: a running run or capacity search whose next tick is not
   * scheduled (its alarm was lost) gets one now, and so does a proposal left
   * applying whose next check is due but not scheduled, so none is left
   * hanging. Each is found with one query on a status index: a wake with
   * none, the usual case, builds no services.
   */
  override async onStart(): Promise<void> {
    const sql = this.ctx.storage.sql;
    const running = sql.exec<{ run_id: string }>("SELECT run_id FROM runs WHERE status = 'running'").toArray();
    const searching = sql
      .exec<{ search_id: string }>("SELECT search_id FROM capacity_searches WHERE status = 'running'")
      .toArray();
    const checks = sql
      .exec<{ proposal_id: string; at: string | null }>(
        "SELECT proposal_id, json_extract(body, '$.provider_apply.next_check_at') AS at FROM proposals WHERE status = 'applying'",
      )
      .toArray()
      .filter((row) => row.at !== null);
    if (running.length === 0 && searching.length === 0 && checks.length === 0) return;
    const schedules = await this.listSchedules();
    const scheduled = (callback: string, field: string) =>
      new Set(
        schedules
          .filter((schedule) => schedule.callback === callback)
          .map((schedule) => (schedule.payload as Record<string, unknown> | undefined)?.[field]),
      );
    const ticking = scheduled("runTick", "runId");
    for (const { run_id: runId } of running) {
      if (!ticking.has(runId)) await this.schedule(new Date(), "runTick", { runId });
    }
    const searchTicking = scheduled("searchTick", "searchId");
    for (const { search_id: searchId } of searching) {
      if (!searchTicking.has(searchId)) await this.schedule(new Date(), "searchTick", { searchId });
    }
    const checking = scheduled("reconcileApply", "proposalId");
    for (const { proposal_id: proposalId, at } of checks) {
      if (!checking.has(proposalId))
        await this.schedule(new Date(Math.max(Date.now(), Date.parse(at ?? ""))), "reconcileApply", { proposalId });
    }
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
    if (account !== this.name) return fail("forbidden", FOREIGN_CALLER_MESSAGE);
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
        scheduleSearchTick: async (at, searchId) => void (await this.schedule(at, "searchTick", { searchId })),
        scheduleCheck: async (at, proposalId) => void (await this.schedule(at, "reconcileApply", { proposalId })),
      }),
    );
    return this.built;
  }
}

// The bundle does not keep function names (keep_names = false in wrangler.toml),
// and agents names the class in its log lines and lifecycle records.
Object.defineProperty(AccountAgent, "name", { value: "AccountAgent" });
