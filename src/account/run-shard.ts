import { DurableObject } from "cloudflare:workers";
import { realClock } from "../runs/clock";
import type { ShardPump } from "../runs/pump";
import type { ShardProgress, ShardSpec, ShardState } from "../runs/shard-state";

/**
 * While a shard runs, its alarm looks in this often: a lost pump (eviction, restart) is started again from the last
 * checkpoint.
 */
const WATCHDOG_MS = 5000;
/**
 * One alarm invocation sends for at most this long, then hands over to the
 * next at once: the platform bounds an invocation's time, and the handover
 * is a clean checkpoint (what is in flight has come back).
 */
const SEGMENT_MS = 60_000;

/**
 * One generator shard of a traffic run, an object of its own so a run can
 * fan out over several. It sends the orders its ShardPump schedules and
 * persists where it is about once a second; the run's coordinator (the
 * account's AccountAgent) reads its progress and tells it when to stop. No
 * route reaches it: only the coordinator holds its name. The sending happens
 * inside the object's alarm handler, which waits for it: work that outlives
 * the call that started it is not left to run on its own.
 */
export class RunShard extends DurableObject<Env> {
  private pump: ShardPump | undefined;
  private running: Promise<void> | undefined;
  private stopRequested = false;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.sql.exec(
      "CREATE TABLE IF NOT EXISTS shard (id INTEGER PRIMARY KEY CHECK (id = 1), spec TEXT NOT NULL, state TEXT NOT NULL, stop INTEGER NOT NULL DEFAULT 0)",
    );
  }

  /** Starts sending; a second start of the same shard changes nothing. */
  async start(spec: ShardSpec): Promise<void> {
    if (this.stored()) return;
    const { ShardPump } = await import("../runs/pump");
    const state = ShardPump.initialState(spec);
    this.ctx.storage.sql.exec(
      "INSERT INTO shard (id, spec, state) VALUES (1, ?, ?)",
      JSON.stringify(spec),
      JSON.stringify(state),
    );
    await this.ctx.storage.setAlarm(Date.now());
  }

  async progress(): Promise<ShardProgress | null> {
    const live = this.pump?.snapshot();
    if (live) return live;
    const stored = this.stored();
    return stored ? { state: stored.state, in_flight: 0 } : null;
  }

  /** No order leaves after this; what is in flight is still answered and counted. */
  async stop(): Promise<void> {
    this.stopRequested = true;
    this.ctx.storage.sql.exec("UPDATE shard SET stop = 1");
  }

  /** The coordinator has read the final figures: nothing here is needed any more. */
  async forget(): Promise<void> {
    if (this.running) return;
    this.ctx.storage.sql.exec("DELETE FROM shard");
    await this.ctx.storage.deleteAlarm();
  }

  override async alarm(): Promise<void> {
    const stored = this.stored();
    if (stored?.state.status !== "running") return;
    if (stored.stop) {
      this.stopRequested = true;
      if (!this.running) this.write({ ...stored.state, status: "stopped" });
      return;
    }
    // Set first: if this invocation is lost, the next one resumes from the last checkpoint.
    await this.ctx.storage.setAlarm(Date.now() + WATCHDOG_MS);
    // An invocation already sending (the watchdog came round while it works) has nothing to add.
    if (this.running) return;
    await this.launch(stored.spec, stored.state, Date.now() + SEGMENT_MS);
    await this.running;
    if (this.stored()?.state.status === "running") await this.ctx.storage.setAlarm(Date.now());
  }

  private stored(): { spec: ShardSpec; state: ShardState; stop: boolean } | undefined {
    const row = this.ctx.storage.sql
      .exec<{ spec: string; state: string; stop: number }>("SELECT spec, state, stop FROM shard WHERE id = 1")
      .toArray()[0];
    return row
      ? { spec: JSON.parse(row.spec) as ShardSpec, state: JSON.parse(row.state) as ShardState, stop: row.stop === 1 }
      : undefined;
  }

  private write(state: ShardState): void {
    this.ctx.storage.sql.exec("UPDATE shard SET state = ? WHERE id = 1", JSON.stringify(state));
  }

  /** Starts the pump for one segment; `running` settles when it has handed over or ended. */
  private async launch(spec: ShardSpec, state: ShardState, handOverAt: number): Promise<void> {
    const [{ ShardPump }, { loadConfig }, { referenceData }, { configuredTarget }, { InvocationLimiter }] =
      await Promise.all([
        import("../runs/pump"),
        import("../config/config"),
        import("../orders/reference-data"),
        import("../synth/order-api-target"),
        import("../core/platform-limits"),
      ]);
    const config = loadConfig(this.env);
    if (!config.ok) {
      this.write({
        ...state,
        status: "failed",
        problem: `the server's configuration is not valid, so the run cannot go on (${config.error.message}); fix it, then start the run again`,
      });
      return;
    }
    // This alarm invocation's own limits, as the platform counts them: the pump hands over before they run out.
    const limiter = new InvocationLimiter(config.value.platformLimits);
    const pump = new ShardPump(spec, {
      clock: realClock,
      // The configured target (the ORDER_API binding or ORDER_API_URL), as seen by the operator who started the run.
      target: configuredTarget(this.env, config.value, spec.account, spec.actor, limiter),
      subrequestsLeft: () => limiter.remaining,
      reference: referenceData,
      maxPauseSeconds: config.value.runs.pauseSeconds,
      checkpoint: (next) => this.write(next),
      stopped: () => this.stopRequested,
    });
    this.pump = pump;
    this.running = pump
      .run(state, handOverAt)
      .then(() => undefined)
      .catch((error: unknown) => {
        console.error(`traffic run ${spec.run_id} shard ${spec.shard} failed:`, error);
        const latest = pump.snapshot()?.state ?? state;
        this.write({
          ...latest,
          status: "failed",
          problem:
            "the run stopped on an unexpected error in the server; the server log has the details. Start it again with the same seed to continue: orders already sent are answered 200 and not duplicated.",
        });
      })
      .finally(() => {
        this.running = undefined;
        this.pump = undefined;
      });
    this.ctx.waitUntil(this.running);
  }
}
