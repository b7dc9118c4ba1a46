import type { AppError, Result } from "../errors";
import type { OrderRequest } from "../orders/intake-schemas";
import { MAX_SAMPLE_FAILURES } from "./batch-summary";
import type { PostedOrder } from "./order-api-target";

export interface BatchTally {
  accepted: number;
  rejected: number;
  status_counts: Record<string, number>;
  accepted_total_cents: number;
  sample_failures: string[];
}

export interface SendBatchOptions {
  readonly orders: readonly OrderRequest[];
  readonly post: (order: OrderRequest) => Promise<Result<PostedOrder>>;
  readonly concurrency: number;
  readonly onProgress?: (sent: number, total: number) => void;
}

/** Formats reasons the way the seed's users know them: `422 ['unknown customer C-5093', ...]`. */
export function describeFailure(status: number, body: unknown): string {
  if (body && typeof body === "object") {
    const { errors, message } = body as { errors?: unknown; message?: unknown };
    if (Array.isArray(errors) && errors.every((e) => typeof e === "string")) {
      const quoted = errors.map((e) => `'${e.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`);
      return `${status} [${quoted.join(", ")}]`;
    }
    if (typeof message === "string") return `${status} ${message}`;
  }
  return `${status} ${body === null || body === undefined ? "(no body)" : JSON.stringify(body).slice(0, 200)}`;
}

type Slot = { kind: "accepted"; status: number; total: number } | { kind: "rejected"; status: number; reason: string };

export interface BatchOutcome {
  /** What was sent, tallied in batch order; partial when `failure` is set. */
  readonly tally: BatchTally;
  readonly failure: AppError | undefined;
}

/**
 * Posts every order with at most `concurrency` requests in flight. If the
 * target becomes unreachable the batch stops and says how far it got; since
 * request_id is idempotent, replaying the same seed finishes it safely.
 */
export async function sendBatch(options: SendBatchOptions): Promise<BatchOutcome> {
  const { orders, post, concurrency, onProgress } = options;
  const slots: (Slot | undefined)[] = new Array(orders.length);
  let nextIndex = 0;
  let sent = 0;
  let failure: AppError | undefined;

  async function worker(): Promise<void> {
    while (failure === undefined && nextIndex < orders.length) {
      const index = nextIndex++;
      const order = orders[index];
      if (!order) return;
      const outcome = await post(order);
      if (!outcome.ok) {
        failure ??= outcome.error;
        return;
      }
      const { status, body } = outcome.value;
      slots[index] =
        status >= 200 && status < 300
          ? { kind: "accepted", status, total: order.total_cents }
          : { kind: "rejected", status, reason: describeFailure(status, body) };
      sent++;
      onProgress?.(sent, orders.length);
    }
  }

  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, orders.length)) }, worker));

  // Tally in batch order, not completion order, so the same seed gives the same summary.
  const tally: BatchTally = { accepted: 0, rejected: 0, status_counts: {}, accepted_total_cents: 0, sample_failures: [] };
  for (const slot of slots) {
    if (!slot) continue;
    const key = String(slot.status);
    tally.status_counts[key] = (tally.status_counts[key] ?? 0) + 1;
    if (slot.kind === "accepted") {
      tally.accepted++;
      tally.accepted_total_cents += slot.total;
    } else {
      tally.rejected++;
      if (tally.sample_failures.length < MAX_SAMPLE_FAILURES) tally.sample_failures.push(slot.reason);
    }
  }
  if (!failure) return { tally, failure: undefined };
  return {
    tally,
    failure: {
      code: failure.code,
      message: `${failure.message}; ${sent} of ${orders.length} orders were answered before the batch stopped, and sending the same seed again finishes the batch without duplicates`,
    },
  };
}
