import { fail, ok, type Result } from "../core/errors";
import { type ReferenceData, referenceData } from "../orders/reference-data";
import type { BatchOutcome, BatchRecord, BatchSummary } from "./batch-summary";
import { type GeneratorMode, orderStream } from "./generators";
import { JOURNAL_INTERVAL_MS } from "./journal-interval";
import type { OrderApiTarget } from "./order-api-target";
import { randomSeed } from "./prng";
import { sendBatch } from "./send-batch";
import type { Tally, TallySnapshot } from "./tally";

export interface SendRequest {
  readonly count: number;
  readonly mode: GeneratorMode;
  readonly seed: number | undefined;
}

/** Where batches are journaled; the account's object keeps it in its own storage. */
export interface BatchJournal {
  /** Written before the first order is sent, so a crash cannot lose the batch or its seed. */
  open(record: BatchRecord): void;
  update(batchId: string, tally: TallySnapshot): void;
  close(
    batchId: string,
    tally: TallySnapshot,
    outcome: Exclude<BatchOutcome, "running" | "interrupted">,
    finishedAt: string,
    error: string | null,
  ): void;
}

interface BatchSenderDeps {
  /** The target as seen by `actor`, who is recorded as the orders' sender. */
  readonly target: (actor: string) => OrderApiTarget;
  readonly maxBatch: number;
  readonly concurrency: number;
  readonly journal: BatchJournal;
  readonly newBatchId: () => string;
  readonly now: () => Date;
  readonly reference?: ReferenceData;
}

/** Checks a requested count against MAX_BATCH with the messages users already know. */
export function checkCount(count: number, maxBatch: number): Result<number> {
  if (!Number.isInteger(count)) return fail("bad_request", `count must be a whole number, got ${count}`);
  if (count < 1) return fail("bad_request", `count must be at least 1, got ${count}`);
  if (count > maxBatch) {
    return fail(
      "bad_request",
      `count ${count} exceeds the server's MAX_BATCH of ${maxBatch}; send smaller batches or raise MAX_BATCH in the server environment`,
    );
  }
  return ok(count);
}

/** About this many progress reports per batch, whatever its size. */
const PROGRESS_REPORTS = 20;

/**
 * send_orders: one journaled batch. The caller serializes batches per account;
 * this class only sends one, and knows nothing about MCP or HTTP.
 */
export class BatchSender {
  private readonly reference: ReferenceData;

  constructor(private readonly deps: BatchSenderDeps) {
    this.reference = deps.reference ?? referenceData;
  }

  async send(
    request: SendRequest,
    operator: string,
    onProgress?: (sent: number, total: number) => void | Promise<void>,
  ): Promise<Result<BatchSummary>> {
    const count = checkCount(request.count, this.deps.maxBatch);
    if (!count.ok) return count;
    const seed = request.seed ?? randomSeed();
    const batchId = this.deps.newBatchId();
    const empty: TallySnapshot = {
      sent: 0,
      accepted: 0,
      rejected: 0,
      status_counts: {},
      accepted_total_cents: 0,
      sample_failures: [],
    };
    const summaryOf = (tally: TallySnapshot): BatchSummary => {
      const { sent: _sent, ...counts } = tally;
      return { batch_id: batchId, mode: request.mode, seed, requested: count.value, ...counts };
    };
    this.deps.journal.open({
      ...summaryOf(empty),
      operator,
      started_at: this.deps.now().toISOString(),
      finished_at: null,
      outcome: "running",
      error: null,
    });
    const target = this.deps.target(`${operator} via send_orders`);
    const health = await target.health();
    if (!health.ok) {
      this.deps.journal.close(batchId, empty, "failed", this.deps.now().toISOString(), health.error.message);
      return health;
    }
    const progressStep = Math.max(1, Math.ceil(count.value / PROGRESS_REPORTS));
    let journaledAt = this.deps.now().getTime();
    const { tally, failure } = await sendBatch({
      orders: orderStream(request.mode, seed, this.reference),
      count: count.value,
      post: (order) => target.postOrder(order),
      concurrency: this.deps.concurrency,
      onAnswer: (running: Tally) => {
        const at = this.deps.now().getTime();
        if (at - journaledAt >= JOURNAL_INTERVAL_MS) {
          journaledAt = at;
          this.deps.journal.update(batchId, running.snapshot());
        }
        const sent = running.answered;
        if (sent === count.value || sent % progressStep === 0) return onProgress?.(sent, count.value);
        return undefined;
      },
    });
    const finishedAt = this.deps.now().toISOString();
    if (failure) {
      // The journal keeps what did get through, so the partial batch is visible.
      this.deps.journal.close(batchId, tally, "failed", finishedAt, failure.message);
      return fail(failure.code, failure.message, failure.errors);
    }
    this.deps.journal.close(batchId, tally, "completed", finishedAt, null);
    return ok(summaryOf(tally));
  }
}
