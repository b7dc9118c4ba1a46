/**
 * Conformance fixtures: the tasks extension's scenarios (tasks-*), by the
 * names they call. Their tasks are protocol fixtures, not account work, so
 * they live in this isolate's memory (the development entry runs one) and are
 * handed to tasks/get, tasks/update and tasks/cancel through the extension's
 * task source; the product's own tasks live in the account's object. Time is
 * read, never waited on: a task is done once its seconds have passed.
 */
import {
  acceptedContent,
  type CallToolResult,
  type InputRequests,
  inputRequired,
  type McpServer,
  type ServerContext,
} from "@modelcontextprotocol/server";
import { z } from "zod/v4";
import { declaresTasks, TASK_POLL_INTERVAL_MS, type TaskSource } from "../src/mcp/server-extension";

const TTL_MS = 60 * 60 * 1000;
const MAX_TASKS = 1000;

type Outcome =
  | { readonly kind: "result"; readonly result: CallToolResult }
  | { readonly kind: "error"; readonly message: string };

interface FixtureTask {
  readonly id: string;
  readonly created: number;
  updated: number;
  readonly doneAt: number;
  readonly outcome: Outcome;
  cancelled: boolean;
  /** Questions still waiting for the client, by key. */
  readonly pending: Map<string, InputRequests[string]>;
}

const tasks = new Map<string, FixtureTask>();

const text = (value: string): CallToolResult => ({ content: [{ type: "text", text: value }] });

function start(outcome: Outcome, seconds: number, pending: InputRequests = {}) {
  if (tasks.size >= MAX_TASKS) tasks.delete(tasks.keys().next().value ?? "");
  const now = Date.now();
  const task: FixtureTask = {
    id: crypto.randomUUID(),
    created: now,
    updated: now,
    doneAt: now + seconds * 1000,
    outcome,
    cancelled: false,
    pending: new Map(Object.entries(pending)),
  };
  tasks.set(task.id, task);
  return { resultType: "task", ...fields(task, "working"), content: [] };
}

function fields(task: FixtureTask, status: string) {
  return {
    taskId: task.id,
    status,
    createdAt: new Date(task.created).toISOString(),
    lastUpdatedAt: new Date(task.updated).toISOString(),
    ttlMs: TTL_MS,
    pollIntervalMs: TASK_POLL_INTERVAL_MS,
  };
}

function detailed(task: FixtureTask): Record<string, unknown> {
  if (task.cancelled) return fields(task, "cancelled");
  if (task.pending.size > 0)
    return { ...fields(task, "input_required"), inputRequests: Object.fromEntries(task.pending) };
  if (Date.now() < task.doneAt) return fields(task, "working");
  if (task.outcome.kind === "error")
    return { ...fields(task, "failed"), error: { code: -32603, message: task.outcome.message } };
  return { ...fields(task, "completed"), result: task.outcome.result };
}

const terminal = (task: FixtureTask) => task.cancelled || (task.pending.size === 0 && Date.now() >= task.doneAt);

export const fixtureTasks: TaskSource = {
  get: (taskId) => {
    const task = tasks.get(taskId);
    return task && detailed(task);
  },
  cancel(taskId) {
    const task = tasks.get(taskId);
    if (task === undefined) return false;
    if (!terminal(task)) {
      task.cancelled = true;
      task.updated = Date.now();
    }
    return true;
  },
  update(taskId, inputResponses) {
    const task = tasks.get(taskId);
    if (task === undefined) return false;
    for (const key of Object.keys(inputResponses)) task.pending.delete(key);
    task.updated = Date.now();
    return true;
  },
};

const askConfirm = (message: string) =>
  inputRequired.elicit({
    message,
    requestedSchema: { type: "object", properties: { confirm: { type: "boolean" } }, required: ["confirm"] },
  });

const optedIn = (ctx: ServerContext) =>
  declaresTasks(ctx.mcpReq.envelope as Readonly<Record<string, unknown>> | undefined);

export function registerTaskTools(server: McpServer): void {
  server.registerTool(
    "greet",
    { description: "Greets by name, at once (never a task).", inputSchema: z.object({ name: z.string() }) },
    async ({ name }) => text(`Hello, ${name}!`),
  );
  server.registerTool(
    "slow_compute",
    {
      description: "Takes `seconds` seconds; a task for a client that declared tasks.",
      inputSchema: z.object({ seconds: z.number().min(0).max(600), label: z.string().optional() }),
      _meta: { "io.modelcontextprotocol/tasks": { taskSupport: "optional" } },
    },
    async ({ seconds, label }, ctx) => {
      const result = text(`computed ${label ?? "it"} in ${seconds} s`);
      if (optedIn(ctx)) return start({ kind: "result", result }, seconds);
      // Only a zero-second call is made without tasks; anything longer would hold the request.
      return seconds === 0 ? result : { ...text("declare the tasks extension to run this as a task"), isError: true };
    },
  );
  server.registerTool(
    "failing_job",
    {
      description: "A task whose tool reports an error after a second.",
      inputSchema: z.object({}),
      _meta: { "io.modelcontextprotocol/tasks": { taskSupport: "required" } },
    },
    async (_args, ctx) => {
      const result: CallToolResult = { ...text("the job failed, as it always does"), isError: true };
      return optedIn(ctx) ? start({ kind: "result", result }, 1) : result;
    },
  );
  server.registerTool(
    "protocol_error_job",
    {
      description: "A task that fails at the protocol level.",
      inputSchema: z.object({}),
      _meta: { "io.modelcontextprotocol/tasks": { taskSupport: "required" } },
    },
    async (_args, ctx) =>
      optedIn(ctx)
        ? start({ kind: "error", message: "the job broke down inside the server" }, 1)
        : { ...text("declare the tasks extension"), isError: true },
  );
  server.registerTool(
    "confirm_delete",
    {
      description: "A task that asks for a confirmation before it completes.",
      inputSchema: z.object({ filename: z.string() }),
      _meta: { "io.modelcontextprotocol/tasks": { taskSupport: "optional" } },
    },
    async ({ filename }, ctx) => {
      const result = text(`deleted ${filename}`);
      if (!optedIn(ctx)) return { ...text("declare the tasks extension"), isError: true };
      return start({ kind: "result", result }, 0, { confirm: askConfirm(`Delete ${filename}?`) });
    },
  );
  server.registerTool(
    "multi_input",
    {
      description: "A task that asks two things at once.",
      inputSchema: z.object({}),
      _meta: { "io.modelcontextprotocol/tasks": { taskSupport: "optional" } },
    },
    async (_args, ctx) => {
      if (!optedIn(ctx)) return { ...text("declare the tasks extension"), isError: true };
      return start({ kind: "result", result: text("both answered") }, 0, {
        first: askConfirm("First question?"),
        second: askConfirm("Second question?"),
      });
    },
  );
  server.registerTool(
    "test_tool_with_task",
    {
      description: "Asks for a name in the call itself, then greets as a task.",
      inputSchema: z.object({}),
      _meta: { "io.modelcontextprotocol/tasks": { taskSupport: "optional" } },
    },
    async (_args, ctx) => {
      const name = acceptedContent<{ name: string }>(ctx.mcpReq.inputResponses, "user_name")?.name;
      if (typeof name !== "string")
        return inputRequired({
          inputRequests: {
            user_name: inputRequired.elicit({
              message: "What is your name?",
              requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
            }),
          },
        });
      const result = text(`Hello, ${name}!`);
      return optedIn(ctx) ? start({ kind: "result", result }, 0) : result;
    },
  );
}
