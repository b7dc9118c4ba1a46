/**
 * Every RPC entry of the account's object, written once: what it does with
 * the account's services once the caller's account has been checked. The
 * object (account-agent.ts) installs each entry as a method of that name that
 * checks the caller's account first, on every call; the Worker reaches the
 * entries for one caller through bindCaller, which fixes the caller once. A
 * new entry is one line in one of the tables below: the object's method, its
 * type on the RPC stub and the MCP tools' caller-bound calls all follow from it.
 */
import type { Approver, Operator } from "../config/config";
import { ok, type Result } from "../core/errors";
import type { Person } from "../core/person";
import type { ChangeKindName, KindInput } from "../orders/change-kinds";
import type { Decision } from "../proposals/decision";
import type { SearchRequest } from "../runs/capacity-plan";
import type { RunRequest } from "../runs/plan";
import type { SendRequest } from "../synth/batch-sender";
import type { BudgetAsk } from "../synth/order-budget";
import { ordered, type ProgressListener } from "./ordered-progress";
import type { AccountServices } from "./services";

/** What the object answers a caller of another account, whichever entry was called. */
export const FOREIGN_CALLER_MESSAGE = "this credential belongs to a different account";

/** The operator as a person: their identity and the name the audit trail shows. */
const personOf = (caller: Operator): Person => ({ id: caller.id, name: caller.operator });

/**
 * The synthetic order budget a call meets: what it would send, worked out by the Worker from the request, and the
 * caller's SYNTH_ORDERS_PER_MINUTE (its configuration decides every limit). Absent when RATE_LIMITS is off.
 */
export interface BudgetCharge {
  readonly ask: BudgetAsk;
  readonly perMinute: number;
}

/**
 * Checks and books in one synchronous step, before anything is awaited, so two concurrent calls cannot both pass on
 * the same room: the booking's id, or the refusal.
 */
function booked(services: AccountServices, charge: BudgetCharge | undefined): Result<number | undefined> {
  if (!charge) return ok(undefined);
  return services.budget.charge(charge.ask, { perMinute: charge.perMinute, holder: services.budgetHolder }, Date.now());
}

/** Ties a booking to the run or search it was for, or gives it back when that did not start. */
function settled<T>(
  services: AccountServices,
  booking: number | undefined,
  started: Result<T>,
  holder: (value: T) => string,
) {
  if (booking === undefined) return started;
  if (started.ok) services.budget.hold(booking, holder(started.value));
  else services.budget.release(booking);
  return started;
}

/** Whoever a call is made for; the object answers only callers of its own account. */
export interface AccountCaller {
  readonly account: string;
}

/** One entry: the services of a checked account, the caller, then the call's own arguments. */
type Entry<C extends AccountCaller> = (
  services: AccountServices,
  caller: C,
  ...args: never[]
) => Result<unknown> | Promise<Result<unknown>>;
type Entries<C extends AccountCaller> = Readonly<Record<string, Entry<C>>>;

/** What an operator's MCP tools ask for, through the calls mcp/account-context.ts binds to their caller. */
export const OPERATOR_CALLS = {
  async sendOrders(
    services,
    caller: Operator,
    request: SendRequest,
    onProgress?: ProgressListener,
    charge?: BudgetCharge,
  ) {
    const booking = booked(services, charge);
    if (!booking.ok) return booking;
    const progress = onProgress && ordered(onProgress);
    const result = await services.batches.run(() => services.sender.send(request, caller.operator, progress?.report));
    await progress?.drained();
    return result;
  },
  recentBatches: (services, _caller: Operator) => ok(services.journal.recent()),
  /** Any kind of change, by its kind's rule; the propose tools (one per kind) all call this. */
  proposeChange: <K extends ChangeKindName>(
    services: AccountServices,
    caller: Operator,
    kind: K,
    orderId: string,
    input: KindInput<K>,
  ) => services.proposals.propose(kind, orderId, input, personOf(caller)),
  getProposal: (services, _caller: Operator, proposalId: string) => services.proposals.getProposal(proposalId),
  /** Holds the call until a person decides the proposal or `timeoutMs` passes; see ProposalService.awaitDecision. */
  waitForDecision: (services, _caller: Operator, proposalId: string, timeoutMs: number) =>
    services.proposals.awaitDecision(proposalId, timeoutMs),
  confirmProposal: (services, caller: Operator, proposalId: string) =>
    services.proposals.confirm(proposalId, caller.operator),
  async startTrafficRun(services, caller: Operator, request: RunRequest, charge?: BudgetCharge) {
    const booking = booked(services, charge);
    if (!booking.ok) return booking;
    const started = await services.runs.start(caller.operator, request);
    return settled(services, booking.value, started, (run) => `run:${run.run_id}`);
  },
  getTrafficRun: (services, _caller: Operator, runId: string) => services.runs.get(runId),
  stopTrafficRun: (services, caller: Operator, runId: string) => services.runs.stop(runId, caller.operator),
  compareTrafficRuns: (services, _caller: Operator, runId: string, baselineId: string, tolerancePercent: number) =>
    services.runs.compare(runId, baselineId, tolerancePercent),
  recentRuns: (services, _caller: Operator) => ok(services.runs.recent()),
  async startCapacitySearch(services, caller: Operator, request: SearchRequest, charge?: BudgetCharge) {
    const booking = booked(services, charge);
    if (!booking.ok) return booking;
    const started = await services.searches.start(caller.operator, request);
    return settled(services, booking.value, started, (search) => `search:${search.search_id}`);
  },
  getCapacitySearch: (services, _caller: Operator, searchId: string) => services.searches.get(searchId),
  stopCapacitySearch: (services, caller: Operator, searchId: string) =>
    services.searches.stop(searchId, caller.operator),
  /** start_traffic_run as an MCP task: the run, and the task that points at it, written before either is answered. */
  async startTrafficRunTask(services, caller: Operator, request: RunRequest, charge?: BudgetCharge) {
    const booking = booked(services, charge);
    if (!booking.ok) return booking;
    const started = await services.runs.start(caller.operator, request);
    const run = settled(services, booking.value, started, (value) => `run:${value.run_id}`);
    return run.ok
      ? ok({ task: services.tasks.create(caller.id, "traffic_run", run.value.run_id), run: run.value })
      : run;
  },
  /** start_capacity_search as an MCP task, likewise. */
  async startCapacitySearchTask(services, caller: Operator, request: SearchRequest, charge?: BudgetCharge) {
    const booking = booked(services, charge);
    if (!booking.ok) return booking;
    const started = await services.searches.start(caller.operator, request);
    const search = settled(services, booking.value, started, (value) => `search:${value.search_id}`);
    return search.ok
      ? ok({ task: services.tasks.create(caller.id, "capacity_search", search.value.search_id), search: search.value })
      : search;
  },
  /** wait_for_approval as an MCP task: a handle on the proposal, which only a person in the approval app decides. */
  async startApprovalTask(services, caller: Operator, proposalId: string) {
    const proposal = await services.proposals.getProposal(proposalId);
    return proposal.ok
      ? ok({ task: services.tasks.create(caller.id, "approval", proposalId), proposal: proposal.value })
      : proposal;
  },
  /** The client answered an approval task's request to open the page. */
  answerTask: (services, caller: Operator, taskId: string) => services.tasks.markAnswered(caller.id, taskId),
  /** A task of this caller's; anyone else's reads as unknown. */
  getTask: (services, caller: Operator, taskId: string) => services.tasks.get(caller.id, taskId),
  /**
   * tasks/cancel: stops the run or search through the same path as the stop tools, if it is still going.
   * Work that has ended is left as it is, and nothing is ever approved or rejected here.
   */
  async cancelTask(services, caller: Operator, taskId: string) {
    const task = services.tasks.get(caller.id, taskId);
    if (!task.ok || task.value.cancelled) return task;
    const { kind, subject_id: subjectId } = task.value;
    // Cancelling an approval's task only stops the waiting: the proposal is left for a person, as it was.
    if (kind === "approval") {
      const proposal = await services.proposals.getProposal(subjectId);
      return proposal.ok && proposal.value.status === "pending_approval"
        ? services.tasks.markCancelled(caller.id, taskId)
        : task;
    }
    if (kind === "traffic_run") {
      const run = services.runs.get(subjectId);
      if (!run.ok || run.value.status !== "running") return task;
      const stopped = await services.runs.stop(subjectId, caller.operator);
      if (!stopped.ok) return stopped;
    } else {
      const search = services.searches.get(subjectId);
      if (!search.ok || search.value.status !== "running") return task;
      const stopped = await services.searches.stop(subjectId, caller.operator);
      if (!stopped.ok) return stopped;
    }
    return services.tasks.markCancelled(caller.id, taskId);
  },
  /** The whole stored run, histograms included: the resource's view, and the run page's export (an approver's). */
  trafficRunRecord: (services, _caller: AccountCaller, runId: string) => services.runs.record(runId),
} satisfies Entries<Operator>;

/** What the approval app asks for, for a signed-in approver. */
export const APPROVER_CALLS = {
  reviewProposal: (services, _caller: Approver, proposalId: string) => services.proposals.review(proposalId),
  decideProposal: (services, approver: Approver, proposalId: string, decision: Decision) =>
    services.proposals.decide(proposalId, decision, approver),
  pendingProposals: async (services, _caller: Approver) => ok(await services.proposals.pending()),
  /** The run page's view, for the chart. */
  runForApprover: (services, _caller: Approver, runId: string) => services.runs.chart(runId),
  /** The capacity search page's view. */
  searchForApprover: (services, _caller: Approver, searchId: string) => services.searches.get(searchId),
  /** Every interval of a run, oldest first: for the CSV export. */
  trafficRunIntervals(services, _caller: Approver, runId: string) {
    const intervals = services.runs.intervals(runId);
    return intervals.ok ? ok([...intervals.value]) : intervals;
  },
} satisfies Entries<Approver>;

/** What writers anywhere in the deployment ask for an account, whoever they act for. */
export const ACCOUNT_CALLS = {
  /**
   * Seals every audit event of the account written so far into its hash
   * chain and answers the head. Writers anywhere call it after writing; the
   * export calls it first, so what it streams is sealed.
   */
  sealAuditTrail: (services, _caller: AccountCaller) => services.sealer.seal(),
  /**
   * Starts a seal pass and answers at once, without waiting for it: what the
   * intake API calls after writing events. The pass runs here, in the object,
   * so no intake request waits on a promise that another request created: the
   * Workers runtime ties I/O to the request that started it.
   */
  /**
   * Expires the proposals whose approval window has closed; the cron trigger asks every configured account each minute.
   */
  expireDueProposals: async (services, _caller: AccountCaller) => ok(await services.proposals.expireDue()),
  requestAuditSeal(services, _caller: AccountCaller) {
    void services.sealer.seal();
    return ok(null);
  },
} satisfies Entries<AccountCaller>;

/** Every entry the object answers over RPC. The three tables share no name (test/account/account-calls.test.ts). */
export const RPC_CALLS = { ...OPERATOR_CALLS, ...APPROVER_CALLS, ...ACCOUNT_CALLS };

/** An entry as a method of the object: the services are the object's own, the caller is the first argument. */
type Method<E> = E extends (services: AccountServices, ...args: infer A) => infer R
  ? (...args: A) => Promise<Awaited<R>>
  : never;
/** An entry with its caller fixed: the call's own arguments only. */
type BoundCall<E> = E extends (services: AccountServices, caller: never, ...args: infer A) => infer R
  ? (...args: A) => Promise<Awaited<R>>
  : never;

/** The object's RPC methods, one per entry (merged into the AccountAgent class). */
export type AccountFace = { [K in keyof typeof RPC_CALLS]: Method<(typeof RPC_CALLS)[K]> };

/** A table's entries for one caller, bound once: nothing in it can name another caller or account. */
export type CallerBound<T> = { readonly [K in keyof T]: BoundCall<T[K]> };

/** What a stub must offer to be bound: a method for each entry that takes the caller first. */
type StubFor<T, C> = { readonly [K in keyof T]: (caller: C, ...args: never[]) => unknown };

/**
 * The entries of `calls` on the account's object, each called with `caller`
 * first. The object still checks that caller's account on every call; the
 * holder of the result never sees the stub, so it cannot pass another caller.
 */
export function bindCaller<C extends AccountCaller, T extends Entries<C>>(
  stub: StubFor<T, C>,
  caller: C,
  calls: T,
): CallerBound<T> {
  // The one cast: an RPC stub's methods answer the entries' results wrapped in workerd's Rpc types.
  const methods = stub as unknown as Readonly<
    Record<keyof T & string, (caller: C, ...args: unknown[]) => Promise<unknown>>
  >;
  const names = Object.keys(calls) as (keyof T & string)[];
  const bound = names.map((name) => [name, (...args: unknown[]) => methods[name](caller, ...args)] as const);
  return Object.freeze(Object.fromEntries(bound)) as CallerBound<T>;
}
