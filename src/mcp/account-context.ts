import { type BudgetCharge, bindCaller, type CallerBound, OPERATOR_CALLS } from "../account/account-calls";
import type { McpCaller } from "../auth/operator";
import type { Config } from "../config/config";
import type { Scope } from "../core/scopes";
import type { AccountOrders } from "../orders/port";
import { planCapacitySearch, type SearchRequest } from "../runs/capacity-plan";
import { planRun, type RunRequest } from "../runs/plan";
import { D1AccountOrders } from "../store/account-orders";
import type { AccountReadSession } from "../store/read-session";
import { checkCount, type SendRequest } from "../synth/batch-sender";
import type { GeneratorMode } from "../synth/generators";
import { configuredTarget, describeTarget } from "../synth/order-api-target";
import { type BudgetAsk, runOrdersPerMinute, searchOrdersPerMinute } from "../synth/order-budget";
import { checkTarget, type Preview, previewOrder, type TargetStatus } from "../synth/target-check";

/**
 * What a tool may ask of the account's object: every operator entry of
 * account/account-calls.ts, with the caller already bound from the
 * credential. The budget charge is the context's own business (below).
 */
export type AccountCalls = CallerBound<typeof OPERATOR_CALLS>;

/** Synthetic traffic that needs no account object: the target is fixed by configuration, never by a caller. */
export interface AccountTraffic {
  checkTarget(): Promise<TargetStatus>;
  preview(mode: GeneratorMode, seed: number | undefined): Preview;
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
  /**
   * The account's object (its AccountAgent), bound to this caller; batches and run starts meet the synthetic budget
   * first.
   */
  readonly agent: AccountCalls;
  readonly traffic: AccountTraffic;
}

/**
 * What a call would send, for the synthetic order budget. A count or a plan
 * that the account's object refuses anyway asks for nothing: the object's own
 * refusal, with the message users know, is the answer.
 */
function budgetAsk(
  config: Config,
  ask: { readonly batch: SendRequest } | { readonly run: RunRequest } | { readonly search: SearchRequest },
): BudgetAsk | undefined {
  if ("batch" in ask)
    return checkCount(ask.batch.count, config.maxBatch).ok ? { kind: "batch", orders: ask.batch.count } : undefined;
  if ("search" in ask) {
    const search = planCapacitySearch(ask.search, 0, config.runs);
    return search.ok ? { kind: "search", ordersPerMinute: searchOrdersPerMinute(search.value) } : undefined;
  }
  const plan = planRun(ask.run, 0, config.runs);
  return plan.ok ? { kind: "run", ordersPerMinute: runOrdersPerMinute(plan.value) } : undefined;
}

/**
 * The calls, each telling `reads` as it reaches the account's object and as
 * it comes back: the object writes D1 on the primary, out of the Worker's
 * sight, so reads after it start there (store/read-session.ts).
 */
function toldTo<T extends object>(reads: AccountReadSession, calls: T): T {
  const told = Object.entries(calls).map(([name, call]) => [
    name,
    async (...args: unknown[]) => {
      reads.objectCalled();
      try {
        return await (call as (...args: unknown[]) => Promise<unknown>)(...args);
      } finally {
        reads.objectCalled();
      }
    },
  ]);
  return Object.freeze(Object.fromEntries(told)) as T;
}

/**
 * The Worker's side of an account: reads go straight to D1, through this
 * request's read session; work that needs one writer per account (proposals,
 * batches) goes to the account's object. The object checks the caller's
 * account again on every call.
 */
export function accountToolContext(
  env: Env,
  config: Config,
  { scopes, ...caller }: McpCaller,
  reads: AccountReadSession,
): AccountToolContext {
  const agent = toldTo(reads, bindCaller(env.ACCOUNT_AGENT.getByName(caller.account), caller, OPERATOR_CALLS));
  // Checked and booked in one step, in the account's object: batches of calls and parallel isolates meet one budget.
  const charge = (ask: BudgetAsk | undefined): BudgetCharge | undefined =>
    config.rateLimits && ask ? { ask, perMinute: config.syntheticOrdersPerMinute } : undefined;
  return {
    account: caller.account,
    operator: caller.operator,
    scopes,
    config,
    orders: new D1AccountOrders(reads, caller.account),
    agent: {
      ...agent,
      sendOrders: (request, onProgress) =>
        agent.sendOrders(request, onProgress, charge(budgetAsk(config, { batch: request }))),
      startTrafficRun: (request) => agent.startTrafficRun(request, charge(budgetAsk(config, { run: request }))),
      startCapacitySearch: (request) =>
        agent.startCapacitySearch(request, charge(budgetAsk(config, { search: request }))),
      startTrafficRunTask: (request) => agent.startTrafficRunTask(request, charge(budgetAsk(config, { run: request }))),
      startCapacitySearchTask: (request) =>
        agent.startCapacitySearchTask(request, charge(budgetAsk(config, { search: request }))),
    },
    traffic: {
      checkTarget: () =>
        checkTarget(
          configuredTarget(env, config, caller.account, `${caller.operator} via check_target`),
          describeTarget(config),
        ),
      preview: (mode, seed) => previewOrder(mode, seed),
    },
  };
}
