import { Agent } from "agents";
import { ProposalDesk } from "../proposals/desk";
import type { Decision, ProposalView } from "../proposals/schemas";
import { ProposalStore } from "../proposals/store";
import { loadConfig, type Approver, type Config, type Operator } from "../config";
import { errorBody, fail, ok, statusOf, type AppError, type Result } from "../errors";
import type { AccountOrders, AccountToolContext } from "../mcp/account-context";
import { serveMcpRequest, type McpCall } from "../mcp/server";
import type { OrderRecord } from "../store/order-rows";
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

const WRONG_ACCOUNT: AppError = { code: "forbidden", message: "this credential belongs to a different account" };

/**
 * One AccountAgent per account (named by the account id). It serves the
 * account's MCP requests and owns its generator state and proposals. Batches
 * run one at a time through `sends`; every proposal state transition runs one
 * at a time through `proposalTransitions`.
 */
export class AccountAgent extends Agent<Env> {
  private readonly sends = new SerialQueue();
  private readonly proposalTransitions = new SerialQueue();
  private batchHistoryStore: BatchHistory | undefined;
  private proposalStore: ProposalStore | undefined;

  private get batches(): BatchHistory {
    this.batchHistoryStore ??= new BatchHistory(this.ctx.storage.sql);
    return this.batchHistoryStore;
  }

  private get proposals(): ProposalStore {
    this.proposalStore ??= new ProposalStore(this.ctx.storage.sql);
    return this.proposalStore;
  }

  /** Called by the Worker after it authenticated the caller; checks ownership again. */
  async handleMcp(call: McpCall, caller: Operator): Promise<Response> {
    const config = await this.readyFor(caller.account);
    if (!config.ok) return jsonError(config.error);
    return serveMcpRequest(call, this.toolContext(config.value, caller, new URL(call.url).origin));
  }

  /** The approval app's view of a proposal; the approver's account must be this one. */
  async reviewProposal(proposalId: string, approver: Approver, baseUrl: string): Promise<Result<{ proposal: ProposalView; order: OrderRecord | null }>> {
    const desk = await this.deskFor(approver, baseUrl);
    return desk.ok ? desk.value.review(proposalId) : desk;
  }

  async decideProposal(proposalId: string, decision: Decision, approver: Approver, baseUrl: string): Promise<Result<ProposalView>> {
    const desk = await this.deskFor(approver, baseUrl);
    return desk.ok ? desk.value.decide(proposalId, decision, approver) : desk;
  }

  async pendingProposals(approver: Approver, baseUrl: string): Promise<Result<ProposalView[]>> {
    const desk = await this.deskFor(approver, baseUrl);
    return desk.ok ? ok(await desk.value.pending()) : desk;
  }

  private async deskFor(approver: Approver, baseUrl: string): Promise<Result<ProposalDesk>> {
    const config = await this.readyFor(approver.account);
    return config.ok ? ok(this.proposalDesk(config.value, baseUrl)) : config;
  }

  /**
   * The preamble of every RPC entry: start the Agent (native RPC bypasses its
   * fetch entry point, which would), read the config, and check once more that
   * the caller's account is this object's.
   */
  private async readyFor(account: string): Promise<Result<Config>> {
    await this.lifecycle.start();
    const config = loadConfig(this.env);
    if (!config.ok) return config;
    return account === this.name ? config : fail(WRONG_ACCOUNT.code, WRONG_ACCOUNT.message);
  }

  private proposalDesk(config: Config, baseUrl: string): ProposalDesk {
    return new ProposalDesk({
      account: this.name,
      store: this.proposals,
      orders: this.env.ORDER_STORE,
      ttlMinutes: config.proposalTtlMinutes,
      now: () => new Date(),
      exclusive: (task) => this.proposalTransitions.run(task),
      approvalUrl: (proposalId) => `${baseUrl}/approvals/${encodeURIComponent(proposalId)}`,
    });
  }

  private accountOrders(operator: string): AccountOrders {
    const api = this.env.ORDER_STORE;
    const account = this.name;
    return {
      status: (orderId) => api.orderStatus(account, orderId),
      details: (orderId) => api.orderDetails(account, orderId),
      exceptions: () => api.listExceptions(account),
      auditLog: (orderId) => api.auditLog(account, orderId),
      simulateFailure: () => api.simulateFailure(account, operator),
    };
  }

  private toolContext(config: Config, caller: Operator, baseUrl: string): AccountToolContext {
    return {
      account: this.name,
      operator: caller.operator,
      config,
      synthetic: this.syntheticTraffic(config, caller),
      batchHistory: () => this.batches.recent(),
      orders: this.accountOrders(caller.operator),
      proposals: this.proposalDesk(config, baseUrl),
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
      target: orderApiTarget(this.env.ORDER_API, this.name, TARGET_TIMEOUT_MS, `${caller.operator} via send_orders`),
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
