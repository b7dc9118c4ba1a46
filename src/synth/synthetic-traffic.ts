import { z } from "zod";
import { fail, ok, type Result } from "../errors";
import { OrderRequestSchema } from "../orders/intake-schemas";
import { referenceData, type ReferenceData } from "../orders/reference-data";
import type { BatchSummary } from "./batch-summary";
import { generateOrders, type GeneratorMode } from "./generators";
import { TARGET_NAME, type OrderApiTarget } from "./order-api-target";
import { randomSeed } from "./prng";
import { sendBatch } from "./send-batch";

export const TargetStatusSchema = z.object({
  target: z.string().describe("The configured target; fixed in wrangler.toml, never chosen by a tool"),
  reachable: z.boolean(),
  skus: z.number().int().nullable().describe("SKU count the target reports; null when unreachable"),
  customers: z.number().int().nullable().describe("Customer count the target reports; null when unreachable"),
  problem: z.string().nullable().describe("Why the target is unreachable; null when reachable"),
});
export type TargetStatus = z.infer<typeof TargetStatusSchema>;

export const PreviewSchema = z.object({
  mode: z.enum(["seeded", "simple"]),
  seed: z.number().int(),
  order: OrderRequestSchema,
  line_count: z.number().int(),
  total_cents: z.number().int(),
});
export type Preview = z.infer<typeof PreviewSchema>;

export interface SendRequest {
  readonly count: number;
  readonly mode: GeneratorMode;
  readonly seed: number | undefined;
}

export interface BatchRecorder {
  completed(summary: BatchSummary, startedAt: Date): void;
  failed(summary: BatchSummary, startedAt: Date, error: string): void;
}

export interface SyntheticTrafficDeps {
  readonly target: OrderApiTarget;
  readonly maxBatch: number;
  readonly concurrency: number;
  readonly recorder: BatchRecorder;
  readonly newBatchId: () => string;
  /** Runs a whole batch without interleaving with any other batch of the account. */
  readonly exclusive: <T>(task: () => Promise<T>) => Promise<T>;
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

/**
 * The synthetic-traffic domain: target check, preview and batch send. It knows
 * nothing about MCP or HTTP; the AccountAgent supplies the target and history.
 */
export class SyntheticTraffic {
  private readonly reference: ReferenceData;

  constructor(private readonly deps: SyntheticTrafficDeps) {
    this.reference = deps.reference ?? referenceData;
  }

  async checkTarget(): Promise<TargetStatus> {
    const health = await this.deps.target.health();
    if (!health.ok) return { target: TARGET_NAME, reachable: false, skus: null, customers: null, problem: health.error.message };
    return { target: TARGET_NAME, reachable: true, skus: health.value.skus, customers: health.value.customers, problem: null };
  }

  preview(mode: GeneratorMode, seed: number | undefined): Preview {
    const chosenSeed = seed ?? randomSeed();
    const [order] = generateOrders(mode, chosenSeed, 1, this.reference);
    if (!order) throw new Error("generator returned no order");
    return { mode, seed: chosenSeed, order, line_count: order.lines.length, total_cents: order.total_cents };
  }

  async send(request: SendRequest, onProgress?: (sent: number, total: number) => void): Promise<Result<BatchSummary>> {
    const count = checkCount(request.count, this.deps.maxBatch);
    if (!count.ok) return count;
    return this.deps.exclusive(() => this.sendChecked(count.value, request, onProgress));
  }

  private async sendChecked(
    count: number,
    request: SendRequest,
    onProgress: ((sent: number, total: number) => void) | undefined,
  ): Promise<Result<BatchSummary>> {
    const seed = request.seed ?? randomSeed();
    const startedAt = new Date();
    const empty: BatchSummary = {
      batch_id: this.deps.newBatchId(),
      mode: request.mode,
      seed,
      requested: count,
      accepted: 0,
      rejected: 0,
      status_counts: {},
      accepted_total_cents: 0,
      sample_failures: [],
    };

    const health = await this.deps.target.health();
    if (!health.ok) {
      this.deps.recorder.failed(empty, startedAt, health.error.message);
      return health;
    }
    const orders = generateOrders(request.mode, seed, count, this.reference);
    const { tally, failure } = await sendBatch({
      orders,
      post: (order) => this.deps.target.postOrder(order),
      concurrency: this.deps.concurrency,
      ...(onProgress ? { onProgress } : {}),
    });
    const summary: BatchSummary = { ...empty, ...tally };
    if (failure) {
      // The history keeps what did get through, so the partial batch is visible.
      this.deps.recorder.failed(summary, startedAt, failure.message);
      return { ok: false, error: failure };
    }
    this.deps.recorder.completed(summary, startedAt);
    return ok(summary);
  }
}
