// MCP tasks (protocol 2025-11-25, the SDK's experimental tasks): a long tool call (waiting for a pipeline) answered at
// once with a task the client polls, kept in a per-session store with a cap and an expiry.
import type { CreateTaskOptions, TaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/interfaces.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  ErrorCode,
  McpError,
  type CreateTaskResult,
  type Result,
  type ServerNotification,
  type ServerRequest,
  type Task,
} from '@modelcontextprotocol/sdk/types.js';
import type { ToolResult } from './results.js';

/** Tasks one session may hold at once (working, or finished and not yet expired). */
const MAX_TASKS_PER_SESSION = 16;
/** How long a task and its result are kept after it ends, unless the client asks for less. */
const TASK_TTL_MS = 15 * 60_000;
/** How often the client is told to poll tasks/get. */
const TASK_POLL_INTERVAL_MS = 2_000;
/** The longest a task's work may run: it no longer holds a request open, so the call deadline is not its limit. */
export const TASK_WORK_LIMIT_MS = 60 * 60_000;

/** What the server advertises: tools/call may be task-augmented; tasks can be listed and cancelled. */
export const TASKS_CAPABILITY = { list: {}, cancel: {}, requests: { tools: { call: {} } } } as const;

const TERMINAL: ReadonlySet<Task['status']> = new Set(['completed', 'failed', 'cancelled']);

interface Entry {
  task: Task;
  result?: Result;
  /** Aborts the task's work when the client cancels it or the session ends. */
  work: AbortController;
  expiry?: NodeJS.Timeout;
}

/**
 * The tasks of one session (createMcpServer makes one per session, so the SDK's sessionId is not needed to keep
 * sessions apart). Bounded: at the cap, the task that ended longest ago makes room; if none has ended, a new
 * task is refused. Every ended task is dropped `ttl` after it ended.
 */
export class SessionTaskStore implements TaskStore {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly limits = { maxTasks: MAX_TASKS_PER_SESSION, ttlMs: TASK_TTL_MS }) {}

  async createTask(params: CreateTaskOptions): Promise<Task> {
    this.makeRoom();
    const now = new Date().toISOString();
    const ttl = Math.min(Math.max(params.ttl ?? this.limits.ttlMs, 1_000), this.limits.ttlMs);
    const task: Task = {
      taskId: crypto.randomUUID(),
      status: 'working',
      ttl,
      createdAt: now,
      lastUpdatedAt: now,
      pollInterval: params.pollInterval ?? TASK_POLL_INTERVAL_MS,
    };
    this.entries.set(task.taskId, { task, work: new AbortController() });
    return { ...task };
  }

  async getTask(taskId: string): Promise<Task | null> {
    const entry = this.entries.get(taskId);
    return entry ? { ...entry.task } : null;
  }

  async storeTaskResult(taskId: string, status: 'completed' | 'failed', result: Result): Promise<void> {
    const entry = this.open(taskId);
    entry.result = result;
    this.end(entry, status);
  }

  async getTaskResult(taskId: string): Promise<Result> {
    const result = this.entries.get(taskId)?.result;
    if (!result)
      throw new McpError(
        ErrorCode.InvalidParams,
        `Task ${taskId} has no result (unknown, expired, cancelled or still working)`,
      );
    return result;
  }

  async updateTaskStatus(taskId: string, status: Task['status'], statusMessage?: string): Promise<void> {
    const entry = this.open(taskId);
    if (statusMessage !== undefined) entry.task.statusMessage = statusMessage;
    if (TERMINAL.has(status)) {
      this.end(entry, status);
      if (status === 'cancelled') entry.work.abort(new Error('the client cancelled the task'));
      return;
    }
    entry.task.status = status;
    entry.task.lastUpdatedAt = new Date().toISOString();
  }

  async listTasks(cursor?: string): Promise<{ tasks: Task[]; nextCursor?: string }> {
    // At most maxTasks exist, so one page holds them all; a cursor is never handed out.
    if (cursor !== undefined) throw new McpError(ErrorCode.InvalidParams, `Invalid cursor: ${cursor}`);
    return { tasks: [...this.entries.values()].map((entry) => ({ ...entry.task })) };
  }

  /** The signal that stops a task's work (cancelled by the client, or the session closed). */
  signalFor(taskId: string): AbortSignal {
    const entry = this.entries.get(taskId);
    if (!entry) throw new Error(`Task ${taskId} not found`);
    return entry.work.signal;
  }

  /** The session ended: every task's work stops and nothing is kept. */
  close(): void {
    for (const entry of this.entries.values()) {
      clearTimeout(entry.expiry);
      entry.work.abort(new Error('the MCP session closed'));
    }
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }

  private open(taskId: string): Entry {
    const entry = this.entries.get(taskId);
    if (!entry) throw new McpError(ErrorCode.InvalidParams, `Task ${taskId} not found (unknown or expired)`);
    if (TERMINAL.has(entry.task.status)) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `Task ${taskId} already ended (${entry.task.status}); its status cannot change`,
      );
    }
    return entry;
  }

  private end(entry: Entry, status: Task['status']): void {
    entry.task.status = status;
    entry.task.lastUpdatedAt = new Date().toISOString();
    entry.expiry = setTimeout(() => this.entries.delete(entry.task.taskId), entry.task.ttl ?? this.limits.ttlMs);
    entry.expiry.unref();
  }

  private makeRoom(): void {
    if (this.entries.size < this.limits.maxTasks) return;
    const ended = [...this.entries.values()]
      .filter((entry) => TERMINAL.has(entry.task.status))
      .sort((a, b) => a.task.lastUpdatedAt.localeCompare(b.task.lastUpdatedAt))[0];
    if (!ended) {
      throw new McpError(
        ErrorCode.InvalidRequest,
        `${this.limits.maxTasks} tasks of this session are still working; ` +
          'wait for one to finish or cancel one (tasks/cancel) before starting another.',
      );
    }
    clearTimeout(ended.expiry);
    this.entries.delete(ended.task.taskId);
  }
}

type CallExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** What a task's work is given: when to stop, and a way to say how it is going (tasks/get shows it). */
interface TaskWork {
  signal: AbortSignal;
  status(message: string): void;
}

/**
 * Starts `work` as a task of this request and answers with the task at once. The work's tool result is stored as
 * the task's result: completed, or failed when it is an error result (as the protocol says of tool calls).
 */
export async function startTask(
  store: SessionTaskStore,
  extra: CallExtra,
  work: (task: TaskWork) => Promise<ToolResult>,
): Promise<CreateTaskResult> {
  const tasks = extra.taskStore;
  if (!tasks) throw new McpError(ErrorCode.InternalError, 'tasks are not enabled on this server');
  const task = await tasks.createTask({ ttl: extra.taskRequestedTtl, pollInterval: TASK_POLL_INTERVAL_MS });
  const signal = store.signalFor(task.taskId);
  const status = (message: string) => {
    // Only while working: a cancelled task's late progress has nowhere to go.
    if (signal.aborted) return;
    tasks.updateTaskStatus(task.taskId, 'working', message).catch(() => undefined);
  };
  void (async () => {
    let result: ToolResult;
    try {
      result = await work({ signal, status });
    } catch (error) {
      result = { content: [{ type: 'text', text: `The task stopped: ${(error as Error).message}` }], isError: true };
    }
    // A cancelled or expired task takes no result; the client was told already.
    if (signal.aborted) return;
    await tasks.storeTaskResult(task.taskId, result.isError ? 'failed' : 'completed', result).catch(() => undefined);
  })();
  return { task };
}
