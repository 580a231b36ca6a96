import type { TaskStore } from '@modelcontextprotocol/sdk/experimental/tasks';
import { type CallToolResult, ErrorCode, type Result, type Task } from '@modelcontextprotocol/sdk/types.js';
import type { App } from '../app-services.ts';
import {
  findTask,
  listTasks,
  markSettled,
  recordTask,
  TASK_TTL_DEFAULT_MS,
  TASK_TTL_MAX_MS,
  type TaskOwner,
  type TaskRecord,
} from '../modules/auth/mcp-tasks.ts';
import type { Tool } from './catalog.ts';
import { protocolError } from './protocol-errors.ts';
import { toolResult } from './tool-results.ts';

/**
 * Long operations as tasks (MCP 2025-11-25, Tasks): a tool whose work goes on after it answers
 * (a server ordered, reinstalled, rebooted: its operation's `settles`, src/schema/operation.ts)
 * runs as a task when the client asks (`task` in tools/call). The call runs at once, through the
 * one executor, exactly as without `task`; what the client gets is a handle, and the answer is
 * kept (src/modules/auth/mcp-tasks.ts). The task's status is read from the resource — the
 * operation's read tool, run for the same credential through the same executor, so scopes and
 * tenancy hold — and it is `completed` once the resource leaves its pending states: then
 * tasks/result answers the call's answer with the resource as it is now. A call refused at once
 * (a 4xx, a quote to confirm) is a task completed at once, its result that refusal. Nothing is held
 * in memory: any instance answers tasks/get. Tasks cannot be cancelled (the provider's work has
 * no undo); tasks/list lists the credential's live tasks.
 */

/** tasks/list's page size: each listed task reads its resource. */
const LIST_PAGE = 20;

/** Runs a tool for the request's credential (http.ts's runner). */
type RunTool = (tool: Tool, args: Record<string, unknown>) => Promise<CallToolResult>;

export interface McpTasks {
  /** The SDK's task store for tasks/get, tasks/result and tasks/list (2025-11-25). */
  store: TaskStore;
  /** Keeps a call's answer as a task, its handle returned (a `tools/call` with `task`, 2025-11-25). */
  create(tool: Tool, result: CallToolResult, ttlMs: number | undefined): Promise<Task>;
  /**
   * The Tasks extension's choice (2026-07-28, tasks-extension.ts): a call whose work goes on is
   * kept as a task, its state returned; one that is done (or refused) is not, and answers as it is.
   */
  follow(tool: Tool, result: CallToolResult): Promise<Task | undefined>;
  /** The credential's task now, or null (unknown, another credential's, expired). */
  find: FindTask;
}

/** A task and, once it is completed, its answer. */
interface FollowedTask {
  task: Task;
  result?: CallToolResult;
}
/** Reads a task for the credential that made it: null when unknown to it or expired. */
export type FindTask = (taskId: string) => Promise<FollowedTask | null>;

/** Where a task's work is, and the answer once settled. */
interface TaskState {
  record: TaskRecord;
  status: 'working' | 'completed';
  statusMessage?: string;
  lastUpdatedAt: Date;
  /** The answer, once the task is completed. */
  result?: CallToolResult;
}

export function mcpTasks(
  app: Pick<App, 'prisma' | 'clock' | 'webhookSecretKey'>,
  who: TaskOwner,
  catalog: readonly Tool[],
  run: RunTool,
): McpTasks {
  /**
   * The task's state now: its record, its status, and the answer to give once it is terminal.
   * `read` is the resource as just read; without it, it is read now.
   */
  async function stateOf(record: TaskRecord, read?: CallToolResult): Promise<TaskState> {
    const stored = record.result as CallToolResult;
    const tool = toolsByName(catalog).get(record.tool);
    const follow = tool?.settles;
    if (record.resourceId === null || !follow) return terminal(record, stored, record.settledAt ?? record.createdAt);
    read ??= await run(follow.read, { id: record.resourceId });
    if (read.isError) {
      const refusal = read.structuredContent as { statusCode?: unknown; message?: unknown };
      // Gone (terminated, or never this account's): the work ended without its resource.
      if (refusal.statusCode === 404) return terminal(record, read, await markSettled(app, who, record));
      // Anything else (a database budget, a rate limit) passes: the client asks again.
      throw protocolError(
        ErrorCode.InternalError,
        `The task's state could not be read now: ${String(refusal.message)}`,
      );
    }
    const resource = read.structuredContent as { status?: unknown };
    if (typeof resource.status === 'string' && follow.pending.has(resource.status))
      return {
        record,
        status: 'working',
        lastUpdatedAt: record.createdAt,
        statusMessage: `The ${follow.read.operation.name} is ${resource.status}.`,
      };
    const answer = follow.at
      ? { ...(stored.structuredContent as object), [follow.at]: resource }
      : (resource as Record<string, unknown>);
    const result = { ...stored, ...toolResult(answer, false) };
    return terminal(record, result, await markSettled(app, who, record));
  }

  /** Keeps the call's answer as a task; its first state is the answer's own (no need to read the resource again). */
  async function start(tool: Tool, result: CallToolResult, ttlMs: number | undefined): Promise<TaskState> {
    const resourceId = result.isError ? null : idOf(tool, result);
    const ttl = Math.min(Math.max(ttlMs ?? TASK_TTL_DEFAULT_MS, 1_000), TASK_TTL_MAX_MS);
    const record = await recordTask(app, who, { tool: tool.name, resourceId, result, ttlMs: ttl });
    return stateOf(record, resourceId === null ? undefined : toolResult(resourceOf(tool, result), false));
  }

  async function state(taskId: string): Promise<TaskState | null> {
    const record = await findTask(app, who, taskId);
    return record ? stateOf(record) : null;
  }

  return {
    create: async (tool, result, ttlMs) => taskOf(await start(tool, result, ttlMs)),
    async follow(tool, result) {
      const status = result.isError ? undefined : resourceOf(tool, result)?.status;
      const pending = typeof status === 'string' && tool.settles?.pending.has(status);
      return pending ? taskOf(await start(tool, result, undefined)) : undefined;
    },
    async find(taskId) {
      const found = await state(taskId);
      return found && { task: taskOf(found), ...(found.result ? { result: found.result } : {}) };
    },

    store: {
      async getTask(taskId) {
        const found = await state(taskId);
        return found ? taskOf(found) : null;
      },
      async getTaskResult(taskId): Promise<Result> {
        const found = await state(taskId);
        if (!found?.result) throw protocolError(ErrorCode.InvalidParams, `Task ${taskId} has no result yet.`);
        return found.result;
      },
      async listTasks(cursor) {
        const records = await listTasks(app, who, LIST_PAGE + 1, cursor);
        const page = records.slice(0, LIST_PAGE);
        const tasks = await Promise.all(page.map(async (r) => taskOf(await stateOf(r))));
        return { tasks, ...(records.length > LIST_PAGE ? { nextCursor: page.at(-1)!.id } : {}) };
      },
      async createTask() {
        throw new Error('Tasks are created by tools/call (mcpTasks.create), never by the SDK');
      },
      async storeTaskResult() {
        throw new Error("A task's result is its call's answer, kept when it was created");
      },
      async updateTaskStatus() {
        throw protocolError(
          ErrorCode.InvalidParams,
          "This task cannot be cancelled: the work it started at the provider has no undo. Undo it with the resource's own operation.",
        );
      },
    },
  };
}

/** The catalogue's tools by name, made once per catalogue (every 2025 request builds an McpTasks). */
const byCatalog = new WeakMap<readonly Tool[], ReadonlyMap<string, Tool>>();
function toolsByName(catalog: readonly Tool[]): ReadonlyMap<string, Tool> {
  let tools = byCatalog.get(catalog);
  if (!tools) {
    tools = new Map(catalog.map((t) => [t.name, t]));
    byCatalog.set(catalog, tools);
  }
  return tools;
}

/** The resource a call's answer holds (`settles.at`, or the answer itself). */
function resourceOf(tool: Tool, result: CallToolResult): Record<string, unknown> | undefined {
  const answer = result.structuredContent as Record<string, unknown> | undefined;
  return (tool.settles?.at ? answer?.[tool.settles.at] : answer) as Record<string, unknown> | undefined;
}

/** The id of the resource a call's answer names. */
function idOf(tool: Tool, result: CallToolResult): string | null {
  const id = resourceOf(tool, result)?.id;
  return typeof id === 'string' ? id : null;
}

/**
 * A settled task is `completed`, its result the tool's answer — a refusal included (`isError`, as
 * the same call without `task` answers it, with its quote and token when it asks a person): a
 * client reads it with tasks/result. `failed` is the protocol's, for a task that has no answer.
 */
function terminal(record: TaskRecord, result: CallToolResult, at: Date): TaskState {
  const refusal = result.isError ? (result.structuredContent as { message?: unknown } | undefined)?.message : undefined;
  return {
    record,
    status: 'completed',
    lastUpdatedAt: at,
    result,
    ...(typeof refusal === 'string' ? { statusMessage: refusal } : {}),
  };
}

/** What the client is told to wait between polls of tasks/get. */
const TASK_POLL_INTERVAL_MS = 2_000;

/** The task as 2025-11-25 shows it. */
function taskOf({ record, status, lastUpdatedAt, statusMessage }: TaskState): Task {
  return {
    taskId: record.id,
    status,
    ttl: record.expiresAt.getTime() - record.createdAt.getTime(),
    createdAt: record.createdAt.toISOString(),
    lastUpdatedAt: lastUpdatedAt.toISOString(),
    pollInterval: TASK_POLL_INTERVAL_MS,
    ...(statusMessage ? { statusMessage } : {}),
  };
}
