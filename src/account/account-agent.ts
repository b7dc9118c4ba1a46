import { Agent } from "agents";
import { loadConfig, type Approver, type Config, type Operator } from "../config/config";
import { fail, ok, type Result } from "../core/errors";
import type { AddressInput } from "../orders/address";
import type { OrderRecord } from "../orders/order-record";
import { ProposalDesk } from "../proposals/desk";
import type { ConfirmResult, Decision, ProposalView } from "../proposals/schemas";
import { ProposalStore } from "../proposals/store";
import { D1AccountOrders } from "../store/account-orders";
import { BatchSender, type SendRequest } from "../synth/batch-sender";
import type { BatchRecord, BatchSummary } from "../synth/batch-summary";
import { orderApiTarget, TARGET_TIMEOUT_MS } from "../synth/order-api-target";
import { SqlBatchJournal } from "./batch-journal";
import { newBatchId } from "./ids";
import { SerialQueue } from "./serial-queue";
import { migrateAccountStorage } from "./storage-schema";

/** Called by the account object with each answered order while a batch runs. */
export type ProgressListener = (sent: number, total: number) => void | Promise<void>;

interface AccountServices {
  readonly desk: ProposalDesk;
  readonly sender: BatchSender;
}

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
  private readonly journal: SqlBatchJournal;
  private built: AccountServices | undefined;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    migrateAccountStorage(ctx.storage);
    this.journal = new SqlBatchJournal(ctx.storage.sql);
    // A fresh instance runs nothing yet, so whatever is still "running" was cut short.
    this.journal.markInterrupted();
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
    return services.ok ? ok(this.journal.recent()) : services;
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

  // ------------------------------------------------------------------ wiring

  /**
   * The preamble of every RPC entry: start the Agent (native RPC bypasses its
   * fetch entry point, which would), read the config, and check once more that
   * the caller's account is this object's. Services are built on first use and
   * then kept for the life of the instance.
   */
  private async servicesFor(account: string): Promise<Result<AccountServices>> {
    await this.lifecycle.start();
    const config = loadConfig(this.env);
    if (!config.ok) return config;
    if (account !== this.name) return fail("forbidden", "this credential belongs to a different account");
    this.built ??= this.build(config.value);
    return ok(this.built);
  }

  private build(config: Config): AccountServices {
    const account = this.name;
    const storage = this.ctx.storage.sql;
    return {
      desk: new ProposalDesk({
        store: new ProposalStore(storage),
        orders: new D1AccountOrders(this.env.DB, account),
        ttlMinutes: config.proposalTtlMinutes,
        now: () => new Date(),
        exclusive: (task) => this.transitions.run(task),
        approvalUrl: (proposalId) => `${config.publicBaseUrl}/approvals/${encodeURIComponent(proposalId)}`,
      }),
      sender: new BatchSender({
        // Read at send time, not build time: the binding is the only way out of this object.
        target: (actor) => orderApiTarget(this.env.ORDER_API, account, TARGET_TIMEOUT_MS, actor),
        maxBatch: config.maxBatch,
        concurrency: config.sendConcurrency,
        journal: this.journal,
        newBatchId,
        now: () => new Date(),
      }),
    };
  }
}

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
