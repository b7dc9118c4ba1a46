/**
 * MCP tasks (the `io.modelcontextprotocol/tasks` extension) as the account's
 * object keeps them: a handle on long work that already lives here (a traffic
 * run, a capacity search), owned by the caller that started it. A task holds
 * no figures of its own: its status and result are read from the work it
 * points at, so a restart of the object cannot leave the two apart.
 */
import { fail, ok, type Result } from "../core/errors";

/** How long a task can be read after it was created: a day, longer than any run or search the caps allow. */
export const TASK_TTL_MS = 24 * 60 * 60 * 1000;

/** What every unknown, expired, foreign or mistyped task id reads as: one answer, so none of them tells anything. */
export const UNKNOWN_TASK_MESSAGE = "there is no task with this id (tasks are kept for 24 hours after they start)";

export type TaskKind = "traffic_run" | "capacity_search" | "approval";

export interface TaskRow {
  readonly task_id: string;
  readonly kind: TaskKind;
  /** The run's, search's or proposal's id. */
  readonly subject_id: string;
  /** Set only by tasks/cancel, while the work was still going. */
  readonly cancelled: boolean;
  /** An approval's client has answered the request to open the approval page, so it is not asked again. */
  readonly answered: boolean;
  readonly created_ms: number;
  readonly updated_ms: number;
  readonly expires_ms: number;
}

interface StoredRow extends Record<string, SqlStorageValue> {
  task_id: string;
  owner: string;
  kind: string;
  subject_id: string;
  cancelled: number;
  answered: number;
  created_ms: number;
  updated_ms: number;
  expires_ms: number;
}

const isKind = (kind: string): kind is TaskKind =>
  kind === "traffic_run" || kind === "capacity_search" || kind === "approval";

export class TaskStore {
  constructor(
    private readonly sql: SqlStorage,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * A new task for `owner`; its id is a random UUID (122 random bits), so it
   * cannot be guessed, and it is written before the caller hears of it.
   */
  create(owner: string, kind: TaskKind, subjectId: string): TaskRow {
    const now = this.now();
    // Expired tasks read as unknown anyway; dropping them here keeps the table bounded by a day of starts.
    this.sql.exec("DELETE FROM mcp_tasks WHERE expires_ms <= ?", now);
    const row: TaskRow = {
      task_id: crypto.randomUUID(),
      kind,
      subject_id: subjectId,
      cancelled: false,
      answered: false,
      created_ms: now,
      updated_ms: now,
      expires_ms: now + TASK_TTL_MS,
    };
    this.sql.exec(
      "INSERT INTO mcp_tasks (task_id, owner, kind, subject_id, cancelled, created_ms, updated_ms, expires_ms) VALUES (?, ?, ?, ?, 0, ?, ?, ?)",
      row.task_id,
      owner,
      kind,
      subjectId,
      now,
      now,
      row.expires_ms,
    );
    return row;
  }

  /** `owner`'s task; another owner's, an expired one and one never made all answer the same not_found. */
  get(owner: string, taskId: string): Result<TaskRow> {
    const row = this.sql
      .exec<StoredRow>(
        "SELECT * FROM mcp_tasks WHERE task_id = ? AND owner = ? AND expires_ms > ?",
        taskId,
        owner,
        this.now(),
      )
      .toArray()[0];
    if (row === undefined || !isKind(row.kind)) return fail("not_found", UNKNOWN_TASK_MESSAGE);
    return ok({
      task_id: row.task_id,
      kind: row.kind,
      subject_id: row.subject_id,
      cancelled: row.cancelled === 1,
      answered: row.answered === 1,
      created_ms: row.created_ms,
      updated_ms: row.updated_ms,
      expires_ms: row.expires_ms,
    });
  }

  /** Records that the client answered the request to open the approval page. */
  markAnswered(owner: string, taskId: string): Result<TaskRow> {
    this.sql.exec(
      "UPDATE mcp_tasks SET answered = 1, updated_ms = ? WHERE task_id = ? AND owner = ? AND expires_ms > ?",
      this.now(),
      taskId,
      owner,
      this.now(),
    );
    return this.get(owner, taskId);
  }

  /** Records that tasks/cancel stopped the work; the row stays readable until it expires. */
  markCancelled(owner: string, taskId: string): Result<TaskRow> {
    this.sql.exec(
      "UPDATE mcp_tasks SET cancelled = 1, updated_ms = ? WHERE task_id = ? AND owner = ? AND expires_ms > ?",
      this.now(),
      taskId,
      owner,
      this.now(),
    );
    return this.get(owner, taskId);
  }
}
