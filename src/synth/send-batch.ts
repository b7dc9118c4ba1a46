import type { AppError, Result } from "../core/errors";
import type { OrderRequest } from "../orders/intake-schemas";
import type { PostedOrder } from "./order-api-target";
import { type Answer, Tally, type TallySnapshot } from "./tally";

interface SendBatchOptions {
  /** The orders in batch order; drawn lazily, so a large batch is never held in memory at once. */
  readonly orders: Iterable<OrderRequest>;
  readonly count: number;
  readonly post: (order: OrderRequest) => Promise<Result<PostedOrder>>;
  readonly concurrency: number;
  /**
   * Called after each answer with the tally so far. When it returns a promise,
   * no further order is posted, and the batch does not answer, until that
   * promise settles (see BatchSender).
   */
  readonly onAnswer?: (tally: Tally) => void | Promise<void>;
}

/** The reasons an intake API gave in a rejection's body: `{errors: [...]}` lines, or its one `message`. */
export function problemsOf(body: unknown): string[] {
  if (body && typeof body === "object") {
    const { errors, message } = body as { errors?: unknown; message?: unknown };
    if (Array.isArray(errors) && errors.length > 0 && errors.every((e) => typeof e === "string")) return errors;
    if (typeof message === "string") return [message];
  }
  return [];
}

/**
 * One readable line per rejection: the status, then every reason the API gave,
 * separated by semicolons (a reason may itself contain a comma), e.g.
 * `422 unknown customer C-5093; unknown sku SKU-9757`.
 */
export function describeFailure(status: number, body: unknown): string {
  const problems = problemsOf(body);
  if (problems.length > 0) return `${status} ${problems.join("; ")}`;
  return `${status} ${body === null || body === undefined ? "(no body)" : JSON.stringify(body).slice(0, 200)}`;
}

export function answerOf(order: OrderRequest, posted: PostedOrder): Answer {
  return posted.status >= 200 && posted.status < 300
    ? { kind: "accepted", status: posted.status, totalCents: order.total_cents }
    : { kind: "rejected", status: posted.status, reason: describeFailure(posted.status, posted.body) };
}

interface BatchOutcome {
  /** What was answered; partial when `failure` is set. */
  readonly tally: TallySnapshot;
  readonly failure: AppError | undefined;
}

/**
 * Posts every order with at most `concurrency` requests in flight. If the
 * target becomes unreachable the batch stops and says how far it got; since
 * request_id is idempotent, replaying the same seed finishes it safely.
 */
export async function sendBatch(options: SendBatchOptions): Promise<BatchOutcome> {
  const { count, post, concurrency, onAnswer } = options;
  const orders = options.orders[Symbol.iterator]();
  const tally = new Tally();
  let nextIndex = 0;
  let failure: AppError | undefined;
  let pause: Promise<void> | undefined;

  /** Waits out the current pause, and any pause set while waiting. */
  async function paused(): Promise<void> {
    for (let current = pause; current; current = pause) {
      await current;
      if (pause === current) pause = undefined;
    }
  }

  async function worker(): Promise<void> {
    while (failure === undefined && nextIndex < count) {
      if (pause) {
        await paused();
        if (failure !== undefined || nextIndex >= count) return;
      }
      const index = nextIndex++;
      const next = orders.next();
      if (next.done) return;
      const outcome = await post(next.value);
      if (!outcome.ok) {
        failure ??= outcome.error;
        return;
      }
      tally.add(index, answerOf(next.value, outcome.value));
      const hold = onAnswer?.(tally);
      // A pause only holds the batch back; it never fails it.
      if (hold) pause = hold.catch(() => undefined);
    }
  }

  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, count)) }, worker));
  // The last answer's pause (its progress report) settles before the batch answers.
  await paused();

  const snapshot = tally.snapshot();
  if (!failure) return { tally: snapshot, failure: undefined };
  return {
    tally: snapshot,
    failure: {
      code: failure.code,
      message: `${failure.message}; ${snapshot.sent} of ${count} orders were answered before the batch stopped, and sending the same seed again finishes the batch without duplicates`,
    },
  };
}
