/**
 * The requests of the MCP tasks extension (tools/task-handles.ts says which
 * wire this is): tasks/get, tasks/update and tasks/cancel, for the tasks the
 * caller started. A task's state is read from the account's object each time
 * (account/task-store.ts), so any isolate answers for any task and a restart
 * loses none. The 2026-07-28 wire removed tasks/result and tasks/list; the SDK
 * answers them -32601 there.
 */
import {
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  inputRequired,
  type McpServer,
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
  type ServerContext,
} from "@modelcontextprotocol/server";
import { z } from "zod/v4";
import type { TaskRow } from "../account/task-store";
import type { Result } from "../core/errors";
import type { AccountToolContext } from "./account-context";
import { approvalProgress, waitForApproval } from "./tools/approval-wait.tools";
import { getCapacitySearch, searchProgress } from "./tools/capacity.tools";
import { getTrafficRun, runProgress } from "./tools/runs.tools";
import { declaresTasks, TASKS_EXTENSION_ID, type TaskStatus, taskFields } from "./tools/task-handles";
import { type AccountTool, toolResult } from "./tools/tool-registration";

const TaskIdParams = z.looseObject({ taskId: z.string() });
const UpdateParams = z.looseObject({
  taskId: z.string(),
  inputResponses: z.record(z.string(), z.unknown()).optional(),
});

/** A request that did not declare the extension is refused, as SEP-2663 asks; a 2025 one finds no such method, as before. */
function requireTasks(ctx: ServerContext): void {
  const envelope = ctx.mcpReq.envelope as Readonly<Record<string, unknown>> | undefined;
  if (envelope === undefined) throw new ProtocolError(ProtocolErrorCode.MethodNotFound, "Method not found");
  if (!declaresTasks(envelope))
    throw new MissingRequiredClientCapabilityError(
      { requiredCapabilities: { extensions: { [TASKS_EXTENSION_ID]: {} } } },
      `declare the ${TASKS_EXTENSION_ID} extension in this request's client capabilities to use tasks`,
    );
}

function unknownTask(message: string): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.InvalidParams, message);
}

/** The tool's own answer, through its own input schema (so its defaults apply), as a client calling it would get it. */
async function readThrough(
  tool: AccountTool,
  args: Record<string, unknown>,
  context: AccountToolContext,
  signal: AbortSignal,
): Promise<Result<Record<string, unknown>> | undefined> {
  const input = typeof tool.input === "function" ? tool.input(context.config) : tool.input;
  const answer = await tool.handler(input.parse(args), context, { signal });
  return "ok" in answer ? answer : undefined;
}

interface Work {
  readonly running: boolean;
  readonly progress: string;
  readonly finishedMs: number;
  /** A pending approval's page, which a client that can open links is asked to show its person. */
  readonly approvalUrl?: string;
}

/** Where a run or a search stands: both say whether they still run and when they ended. */
function longWork(record: { readonly status: string; readonly finished_at: string | null }, progress: string): Work {
  return { running: record.status === "running", progress, finishedMs: Date.parse(record.finished_at ?? "") || 0 };
}

/** The input request an approval task makes, under this key, until the client answers it. */
const OPEN_APPROVAL_PAGE = "open_approval_page";

/** Where the task's work stands, from the same read its polling tool makes. */
async function workOf(
  task: TaskRow,
  context: AccountToolContext,
  signal: AbortSignal,
): Promise<{ answer: Result<Record<string, unknown>> | undefined; work: Work | undefined }> {
  if (task.kind === "approval") {
    const proposal = await context.agent.getProposal(task.subject_id);
    if (!proposal.ok) return { answer: undefined, work: undefined };
    const pending = proposal.value.status === "pending_approval";
    const decided = Date.parse(proposal.value.decided_at ?? "") || 0;
    // Read through the tool only once decided, so its wait returns at once.
    const answer = pending
      ? proposal
      : await readThrough(waitForApproval, { proposal_id: task.subject_id, timeout_seconds: 1 }, context, signal);
    const work = pending
      ? {
          running: true,
          progress: approvalProgress(proposal.value),
          finishedMs: 0,
          approvalUrl: proposal.value.approval_url,
        }
      : { running: false, progress: "", finishedMs: decided };
    return { answer, work };
  }
  // A poll while the work runs reads it once; only once it has ended is it read through its tool, whose answer is the
  // task's result.
  if (task.kind === "traffic_run") {
    const run = await context.agent.getTrafficRun(task.subject_id);
    if (!run.ok) return { answer: run, work: undefined };
    const work = longWork(run.value, runProgress(run.value));
    const answer = work.running ? run : await readThrough(getTrafficRun, { run_id: task.subject_id }, context, signal);
    return { answer, work };
  }
  const search = await context.agent.getCapacitySearch(task.subject_id);
  if (!search.ok) return { answer: search, work: undefined };
  const work = longWork(search.value, searchProgress(search.value));
  const answer = work.running
    ? search
    : await readThrough(getCapacitySearch, { search_id: task.subject_id }, context, signal);
  return { answer, work };
}

const WORK_NAME = { traffic_run: "traffic run", capacity_search: "capacity search", approval: "proposal" } as const;

/** Whether the request's client declared URL elicitation, so it can be asked to open a page. */
function opensUrls(ctx: ServerContext): boolean {
  const envelope = ctx.mcpReq.envelope as Readonly<Record<string, ClientCapabilities | undefined>> | undefined;
  return envelope?.[CLIENT_CAPABILITIES_META_KEY]?.elicitation?.url !== undefined;
}

/** tasks/get's DetailedTask: the task's fields, and once it has ended its result (or, if the work is gone, an error). */
async function detailedTask(task: TaskRow, context: AccountToolContext, ctx: ServerContext) {
  const signal = ctx.mcpReq.signal;
  const name = WORK_NAME[task.kind];
  if (task.cancelled) {
    const message = `cancelled: the ${name} ${task.subject_id} was stopped, as its stop tool stops it`;
    return taskFields(task, "cancelled", message, task.updated_ms);
  }
  const { answer, work } = await workOf(task, context, signal);
  if (work === undefined || answer === undefined) {
    const message = `the ${name} ${task.subject_id} can no longer be read`;
    return { ...taskFields(task, "failed", message, task.updated_ms), error: { code: -32603, message } };
  }
  if (work.running && work.approvalUrl !== undefined && !task.answered && opensUrls(ctx)) {
    const open = inputRequired.elicitUrl({ message: work.progress, url: work.approvalUrl });
    return {
      ...taskFields(task, "input_required", work.progress, task.updated_ms),
      inputRequests: { [OPEN_APPROVAL_PAGE]: open },
    };
  }
  if (work.running) return taskFields(task, "working" satisfies TaskStatus, work.progress, task.updated_ms);
  // The inlined result is a 2026-07-28 tool result, which names its own resultType (ext-tasks' decoder insists).
  const ended = `the ${name} ${task.subject_id} has ended; its result is the answer its polling tool gives`;
  return {
    ...taskFields(task, "completed", ended, work.finishedMs),
    result: { ...toolResult(answer), resultType: "complete" },
  };
}

/**
 * Tasks kept elsewhere than in the account's object: only the conformance
 * fixtures' (server-extension.ts), asked first, each answering for its own ids only.
 */
export interface TaskSource {
  /** The task's DetailedTask fields, or undefined for an id that is not this source's. */
  get(taskId: string): Record<string, unknown> | undefined;
  /** False for an id that is not this source's. */
  cancel(taskId: string): boolean;
  update(taskId: string, inputResponses: Readonly<Record<string, unknown>>): boolean;
}

/** Registers the task requests on a server built for `context`'s caller. */
export function registerTaskMethods(server: McpServer, context: AccountToolContext, other?: TaskSource): void {
  server.server.setRequestHandler("tasks/get", { params: TaskIdParams }, async ({ taskId }, ctx) => {
    requireTasks(ctx);
    const own = other?.get(taskId);
    if (own !== undefined) return own;
    const task = await context.agent.getTask(taskId);
    if (!task.ok) throw unknownTask(task.error.message);
    return detailedTask(task.value, context, ctx);
  });
  server.server.setRequestHandler("tasks/cancel", { params: TaskIdParams }, async ({ taskId }, ctx) => {
    requireTasks(ctx);
    if (other?.cancel(taskId)) return {};
    const cancelled = await context.agent.cancelTask(taskId);
    if (!cancelled.ok && cancelled.error.code === "not_found") throw unknownTask(cancelled.error.message);
    if (!cancelled.ok) throw new ProtocolError(ProtocolErrorCode.InternalError, cancelled.error.message);
    // The ack is empty; the task's new status is for the next tasks/get.
    return {};
  });
  server.server.setRequestHandler("tasks/update", { params: UpdateParams }, async ({ taskId, inputResponses }, ctx) => {
    requireTasks(ctx);
    // The SDK lifts a request's inputResponses out of its params, as it does for tools/call.
    const responses = inputResponses ?? (ctx.mcpReq.inputResponses as Readonly<Record<string, unknown>> | undefined);
    if (other?.update(taskId, responses ?? {})) return {};
    const task = await context.agent.getTask(taskId);
    if (!task.ok) throw unknownTask(task.error.message);
    // Only an approval asks its client something (to open the page); any other response is acknowledged and ignored.
    if (task.value.kind === "approval" && responses !== undefined && OPEN_APPROVAL_PAGE in responses)
      await context.agent.answerTask(taskId);
    return {};
  });
}
