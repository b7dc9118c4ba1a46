/**
 * The limits Cloudflare enforces on one invocation (a request, an alarm run,
 * an RPC call to a Durable Object) that bind a load generator, and a local
 * stand-in for them: `wrangler dev` and the Workers test pool enforce
 * neither, so a design that would break them deployed only fails here if we
 * enforce them ourselves.
 *
 * Sources, read December 2026:
 * - https://developers.cloudflare.com/workers/platform/limits/ : "Simultaneous
 *   outgoing connections/request: 6" on every plan; subrequests "50/request"
 *   on Workers Free, "10,000/request" on Workers Paid; CPU time 10 ms (Free),
 *   up to 5 min (Paid); memory 128 MB per isolate.
 * - https://developers.cloudflare.com/changelog/2026-04-09-relaxed-connection-limiting :
 *   a connection counts only while it waits for its response headers; a
 *   seventh waits until one of the six has them.
 * - The Workers subrequest changelog (2026): the Paid default of 10,000 per
 *   invocation can be raised to 10 million with `[limits] subrequests` in the
 *   wrangler configuration (Free stays at 50 external + 1,000 to Cloudflare
 *   services); SUBREQUEST_LIMIT mirrors that setting here.
 * - https://developers.cloudflare.com/durable-objects/platform/limits/ : CPU
 *   time 30 s per invocation by default (configurable up to 5 min with
 *   `[limits] cpu_ms`), and an alarm handler has a wall-clock limit of 15 min.
 *
 * workerd's own message for the subrequest limit is thrown here word for
 * word, so code that handles it deployed handles it locally.
 */

/** Requests one invocation may have waiting for response headers at once. */
export const CONNECTIONS_PER_INVOCATION = 6;
/** Subrequests one invocation may make on Workers Paid, unless `[limits] subrequests` says otherwise. */
export const PAID_SUBREQUESTS_PER_INVOCATION = 10_000;
/** The same on Workers Free (external subrequests). */
export const FREE_SUBREQUESTS_PER_INVOCATION = 50;
/** The most `[limits] subrequests` may be raised to. */
export const MAX_CONFIGURABLE_SUBREQUESTS = 10_000_000;
/** A Durable Object's default CPU time per invocation. */
export const DURABLE_OBJECT_CPU_MS = 30_000;
/** How long an alarm handler may run, by the wall clock. */
export const ALARM_WALL_CLOCK_MS = 15 * 60_000;
/** workerd's error when an invocation asks for one subrequest too many. */
export const SUBREQUEST_LIMIT_MESSAGE = "Too many subrequests by single Worker invocation.";

/** What the local stand-in enforces; null means nothing (PLATFORM_LIMITS=off, to measure the machine). */
export interface PlatformLimits {
  readonly connections: number;
  readonly subrequests: number;
}

export type LimitedFetch = (url: string, init: RequestInit, started?: () => void) => Promise<Response>;

/**
 * The limits of one invocation, wrapped around its fetch. Make one per
 * invocation (an alarm run, an RPC call), as the platform counts per
 * invocation: the count never resets within one.
 */
export class InvocationLimiter {
  private used = 0;
  private waiting = 0;
  private readonly queue: (() => void)[] = [];

  constructor(private readonly limits: PlatformLimits | null) {}

  /** Subrequests this invocation may still make; Infinity when the limits are off. */
  get remaining(): number {
    return this.limits === null ? Number.POSITIVE_INFINITY : this.limits.subrequests - this.used;
  }

  /** Requests waiting for a connection, behind the ones waiting for their headers. */
  get queued(): number {
    return this.queue.length;
  }

  /**
   * `fetch` under the limits: past the subrequest budget it fails as workerd
   * does; the seventh request waits until one of six has its headers.
   * `started` is called when the request really leaves (after any wait), so
   * a caller that times from there does not count the wait as service time.
   */
  wrap(fetch: (url: string, init: RequestInit) => Promise<Response>): LimitedFetch {
    return async (url, init, started) => {
      const limits = this.limits;
      if (limits === null) {
        started?.();
        return fetch(url, init);
      }
      this.used++;
      if (this.used > limits.subrequests) throw new Error(SUBREQUEST_LIMIT_MESSAGE);
      if (this.waiting >= limits.connections) await new Promise<void>((resume) => this.queue.push(resume));
      // The slot is this request's now: release() handed it over without letting the count drop.
      else this.waiting++;
      started?.();
      try {
        return await fetch(url, init);
      } finally {
        this.release();
      }
    };
  }

  /** Headers arrived (or the request failed): the next request in the queue takes the slot. */
  private release(): void {
    const next = this.queue.shift();
    if (next) next();
    else this.waiting--;
  }
}
