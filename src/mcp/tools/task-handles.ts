/**
 * The MCP tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663, as of
 * protocol 2026-07-28) where tools meet it: whether a request opted in, what a
 * tool that can run as a task says in its listing, and the CreateTaskResult a
 * tools/call gets. The tasks themselves live in the account's object
 * (account/task-store.ts); tasks/get and tasks/cancel are ../task-methods.ts.
 * SDK 2.4.0 has no server side of the extension (it dropped the 2025 tasks
 * with its 2025 registry), so this is ours; the wire shapes are the
 * conformance suite's and @modelcontextprotocol/ext-tasks' (core/v2).
 */
import type { TaskRow } from "../../account/task-store";

/** A task a tool started, and what its status says at first. */
export interface StartedTask {
  readonly task: TaskRow;
  readonly statusMessage: string;
}

export const TASKS_EXTENSION_ID = "io.modelcontextprotocol/tasks";

/** The per-request envelope key a 2026-07-28 client declares its capabilities under (the SDK's CLIENT_CAPABILITIES_META_KEY). */
const CLIENT_CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities";

/** How often a host should ask tasks/get about a run or a search: its figures move once a second. */
export const TASK_POLL_INTERVAL_MS = 2000;

/**
 * Whether a request's `_meta` declares the tasks extension. 2026-07-28 is
 * stateless, so a client that declared it for its session sends it on every
 * request; one that did not can still opt one call in. A 2025 request has no
 * such envelope, so it never opts in.
 */
export function declaresTasks(meta: Readonly<Record<string, unknown>> | undefined): boolean {
  const declared = meta?.[CLIENT_CAPABILITIES_KEY];
  if (typeof declared !== "object" || declared === null) return false;
  const extensions = (declared as { readonly extensions?: unknown }).extensions;
  return typeof extensions === "object" && extensions !== null && TASKS_EXTENSION_ID in extensions;
}

/** What a tool that may run as a task says in its listing: the 2026-07-28 wire has no `execution.taskSupport`. */
export const TASK_TOOL_META = { [TASKS_EXTENSION_ID]: { taskSupport: "optional" } } as const;

/** The task fields every answer about a task carries (CreateTaskResult and tasks/get alike). */
export function taskFields(task: TaskRow, status: TaskStatus, statusMessage: string, lastUpdatedMs: number) {
  return {
    taskId: task.task_id,
    status,
    statusMessage,
    createdAt: new Date(task.created_ms).toISOString(),
    lastUpdatedAt: new Date(Math.max(task.updated_ms, lastUpdatedMs)).toISOString(),
    ttlMs: task.expires_ms - task.created_ms,
    pollIntervalMs: TASK_POLL_INTERVAL_MS,
  };
}

export type TaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";

/** The answer to a tools/call that started a task: flat, `resultType: "task"`, the task's fields at the top. */
export function createTaskResult(task: TaskRow, statusMessage: string) {
  return { resultType: "task", ...taskFields(task, "working", statusMessage, task.updated_ms) };
}
