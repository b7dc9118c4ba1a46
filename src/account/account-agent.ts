import { Agent } from "agents";
import { loadConfig, type Config, type Operator } from "../config";
import { errorBody, statusOf, type AppError } from "../errors";
import type { AccountToolContext } from "../mcp/account-context";
import { serveMcpRequest } from "../mcp/server";
import type { BatchSummary } from "../synth/batch-summary";
import { orderApiTarget } from "../synth/order-api-target";
import { SyntheticTraffic } from "../synth/synthetic-traffic";
import { BatchHistory, type BatchRecord } from "./batch-history";
import { SerialQueue } from "./serial-queue";

const TARGET_TIMEOUT_MS = 10_000;

function jsonError(error: AppError): Response {
  return Response.json(errorBody(error), { status: statusOf(error) });
}

function newBatchId(): string {
  const random = crypto.getRandomValues(new Uint8Array(4));
  return `B-${Date.now().toString(36)}-${[...random].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
}

/**
 * One AccountAgent per account (named by the account id). It serves the
 * account's MCP requests and owns its generator state; sends for one account
 * run one batch at a time through `sends`.
 */
export class AccountAgent extends Agent<Env> {
  private readonly sends = new SerialQueue();
  private batchHistoryStore: BatchHistory | undefined;

  private get batches(): BatchHistory {
    this.batchHistoryStore ??= new BatchHistory(this.ctx.storage.sql);
    return this.batchHistoryStore;
  }

  /** Called by the Worker after it authenticated the caller; checks ownership again. */
  async handleMcp(request: Request, caller: Operator): Promise<Response> {
    // Native RPC bypasses the Agent's fetch entry point, which would start it.
    await this.lifecycle.start();
    const config = loadConfig(this.env);
    if (!config.ok) return jsonError(config.error);
    if (caller.account !== this.name) {
      return jsonError({ code: "forbidden", message: "this credential belongs to a different account" });
    }
    return serveMcpRequest(request, this.toolContext(config.value, caller));
  }

  private toolContext(config: Config, caller: Operator): AccountToolContext {
    return {
      account: this.name,
      operator: caller.operator,
      config,
      synthetic: this.syntheticTraffic(config, caller),
      batchHistory: () => this.batches.recent(),
    };
  }

  private syntheticTraffic(config: Config, caller: Operator): SyntheticTraffic {
    const record = (summary: BatchSummary, startedAt: Date, outcome: BatchRecord["outcome"], error: string | null) =>
      this.batches.record({
        ...summary,
        operator: caller.operator,
        started_at: startedAt.toISOString(),
        finished_at: new Date().toISOString(),
        outcome,
        error,
      });
    return new SyntheticTraffic({
      target: orderApiTarget(this.env.ORDER_API, this.name, TARGET_TIMEOUT_MS),
      maxBatch: config.maxBatch,
      concurrency: config.sendConcurrency,
      newBatchId,
      exclusive: (task) => this.sends.run(task),
      recorder: {
        completed: (summary, startedAt) => record(summary, startedAt, "completed", null),
        failed: (summary, startedAt, error) => record(summary, startedAt, "failed", error),
      },
    });
  }
}
