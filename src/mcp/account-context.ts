import type { McpCaller } from "../auth/operator";
import type { Config } from "../config/config";
import { ok, type Result } from "../core/errors";
import type { Scope } from "../core/scopes";
import type { AddressInput } from "../orders/address";
import type { AccountOrders } from "../orders/port";
import type { ConfirmResult, ProposalView } from "../proposals/schemas";
import { D1AccountOrders } from "../store/account-orders";
import { checkCount, type SendRequest } from "../synth/batch-sender";
import { runOrdersPerMinute, type BudgetAsk } from "../synth/order-budget";
import type { BatchRecord, BatchSummary } from "../synth/batch-summary";
import type { GeneratorMode } from "../synth/generators";
import type { Comparison } from "../runs/compare";
import { planRun, type RunRequest } from "../runs/plan";
import type { RunRecord } from "../runs/record";
import type { RunDetail, RunSummary } from "../runs/schemas";
import { configuredTarget, describeTarget } from "../synth/order-api-target";
import { checkTarget, previewOrder, type Preview, type TargetStatus } from "../synth/target-check";
import { accountDatabase } from "../store/databases";

/** The account's proposals; each call is one transition in the account's object. */
export interface AccountProposals {
  proposeResolution(orderId: string): Promise<Result<ProposalView>>;
  prepareAddressChange(orderId: string, address: AddressInput): Promise<Result<ProposalView>>;
  get(proposalId: string): Promise<Result<ProposalView>>;
  /** Resolves once a person has decided the proposal, or after `timeoutMs` with it as it is. */
  waitForDecision(proposalId: string, timeoutMs: number): Promise<Result<{ proposal: ProposalView; waitedMs: number }>>;
  confirm(proposalId: string): Promise<Result<ConfirmResult>>;
}

/** Synthetic traffic for the account: the target is fixed by configuration, never by a caller. */
export interface AccountTraffic {
  checkTarget(): Promise<TargetStatus>;
  preview(mode: GeneratorMode, seed: number | undefined): Preview;
  /** `onProgress` only when the client asked for progress. */
  send(request: SendRequest, onProgress: ((sent: number, total: number) => Promise<void>) | undefined): Promise<Result<BatchSummary>>;
  recentBatches(): Promise<Result<BatchRecord[]>>;
  startRun(request: RunRequest): Promise<Result<RunSummary>>;
  getRun(runId: string): Promise<Result<RunDetail>>;
  stopRun(runId: string): Promise<Result<RunSummary>>;
  compareRuns(runId: string, baselineId: string, tolerancePercent: number): Promise<Result<Comparison>>;
  runRecord(runId: string): Promise<Result<{ summary: RunSummary; record: RunRecord }>>;
  recentRuns(): Promise<Result<RunSummary[]>>;
}

/**
 * Everything a tool handler may use, resolved before any tool runs: the account
 * and operator come from the credential, never from tool arguments, and every
 * service is already scoped to that account.
 */
export interface AccountToolContext {
  readonly account: string;
  readonly operator: string;
  /** What the credential was granted; tools outside it are neither listed nor callable. */
  readonly scopes: readonly Scope[];
  readonly config: Config;
  readonly orders: AccountOrders;
  readonly proposals: AccountProposals;
  readonly traffic: AccountTraffic;
}

/**
 * What a call would send, for the synthetic order budget. A count or a plan
 * that the account's object refuses anyway asks for nothing: the object's own
 * refusal, with the message users know, is the answer.
 */
function budgetAsk(config: Config, ask: { readonly batch: SendRequest } | { readonly run: RunRequest }): BudgetAsk | undefined {
  if ("batch" in ask) return checkCount(ask.batch.count, config.maxBatch).ok ? { kind: "batch", orders: ask.batch.count } : undefined;
  const plan = planRun(ask.run, 0, config.runs);
  return plan.ok ? { kind: "run", ordersPerMinute: runOrdersPerMinute(plan.value) } : undefined;
}

/**
 * The Worker's side of an account: reads go straight to D1, work that needs
 * one writer per account (proposals, batches) goes to the account's object.
 * The object checks the caller's account again on every call.
 */
export function accountToolContext(env: Env, config: Config, { scopes, ...caller }: McpCaller): AccountToolContext {
  const agent = env.ACCOUNT_AGENT.getByName(caller.account);
  // Counted per call, in the account's object: batches of calls and parallel isolates meet one budget.
  const withinBudget = async (ask: BudgetAsk | undefined): Promise<Result<void>> =>
    config.rateLimits && ask ? agent.chargeSyntheticBudget(caller, ask, config.syntheticOrdersPerMinute) : ok(undefined);
  return {
    account: caller.account,
    operator: caller.operator,
    scopes,
    config,
    orders: new D1AccountOrders(accountDatabase(env, caller.account), caller.account),
    proposals: {
      proposeResolution: (orderId) => agent.proposeResolution(caller, orderId),
      prepareAddressChange: (orderId, address) => agent.prepareAddressChange(caller, orderId, address),
      get: (proposalId) => agent.getProposal(caller, proposalId),
      waitForDecision: (proposalId, timeoutMs) => agent.waitForDecision(caller, proposalId, timeoutMs),
      confirm: (proposalId) => agent.confirmProposal(caller, proposalId),
    },
    traffic: {
      checkTarget: () => checkTarget(configuredTarget(env, config, caller.account, `${caller.operator} via check_target`), describeTarget(config)),
      preview: (mode, seed) => previewOrder(mode, seed),
      send: async (request, onProgress) => {
        const budget = await withinBudget(budgetAsk(config, { batch: request }));
        return budget.ok ? agent.sendOrders(caller, request, onProgress) : budget;
      },
      recentBatches: () => agent.recentBatches(caller),
      startRun: async (request) => {
        const budget = await withinBudget(budgetAsk(config, { run: request }));
        return budget.ok ? agent.startTrafficRun(caller, request) : budget;
      },
      getRun: (runId) => agent.getTrafficRun(caller, runId),
      stopRun: (runId) => agent.stopTrafficRun(caller, runId),
      compareRuns: (runId, baselineId, tolerance) => agent.compareTrafficRuns(caller, runId, baselineId, tolerance),
      runRecord: (runId) => agent.trafficRunRecord(caller, runId),
      recentRuns: () => agent.recentRuns(caller),
    },
  };
}
