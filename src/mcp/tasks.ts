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

/** What the client is told to wait between polls of tasks/get. */
const TASK_POLL_INTERVAL_MS = 2_000;
/** tasks/list's page size: each listed task reads its resource. */
const LIST_PAGE = 20;

/** Runs a tool for the request's credential (http.ts's runner). */
type RunTool = (tool: Tool, args: Record<string, unknown>) => Promise<CallToolResult>;

export interface McpTasks {
  /** The SDK's task store for tasks/get, tasks/result and tasks/list. */
  store: TaskStore;
  /** Keeps a call's answer as a task, its handle returned (a `tools/call` with `task`). */
  create(tool: Tool, result: CallToolResult, ttlMs: number | undefined): Promise<Task>;
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
  async function stateOf(record: TaskRecord, read?: CallToolResult): Promise<{ task: Task; result?: CallToolResult }> {
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
        task: taskOf(record, 'working', record.createdAt, `The ${follow.read.operation.name} is ${resource.status}.`),
      };
    const answer = follow.at
      ? { ...(stored.structuredContent as object), [follow.at]: resource }
      : (resource as Record<string, unknown>);
    const result = { ...stored, ...toolResult(answer, false) };
    return terminal(record, result, await markSettled(app, who, record));
  }

  return {
    async create(tool, result, ttlMs) {
      const resourceId = result.isError ? null : idOf(tool, result);
      const ttl = Math.min(Math.max(ttlMs ?? TASK_TTL_DEFAULT_MS, 1_000), TASK_TTL_MAX_MS);
      const record = await recordTask(app, who, { tool: tool.name, resourceId, result, ttlMs: ttl });
      // The call's own answer shows the resource as it left it: no need to read it again.
      return (await stateOf(record, resourceId === null ? undefined : toolResult(resourceOf(tool, result), false)))
        .task;
    },

    store: {
      async getTask(taskId) {
        const record = await findTask(app, who, taskId);
        return record ? (await stateOf(record)).task : null;
      },
      async getTaskResult(taskId): Promise<Result> {
        const record = await findTask(app, who, taskId);
        const state = record && (await stateOf(record));
        if (!state?.result) throw protocolError(ErrorCode.InvalidParams, `Task ${taskId} has no result yet.`);
        return state.result;
      },
      async listTasks(cursor) {
        const records = await listTasks(app, who, LIST_PAGE + 1, cursor);
        const page = records.slice(0, LIST_PAGE);
        const tasks = await Promise.all(page.map(async (r) => (await stateOf(r)).task));
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
function terminal(record: TaskRecord, result: CallToolResult, at: Date): { task: Task; result: CallToolResult } {
  const refusal = result.isError ? (result.structuredContent as { message?: unknown } | undefined)?.message : undefined;
  return { task: taskOf(record, 'completed', at, typeof refusal === 'string' ? refusal : undefined), result };
}

function taskOf(record: TaskRecord, status: Task['status'], updatedAt: Date, statusMessage?: string): Task {
  return {
    taskId: record.id,
    status,
    ttl: record.expiresAt.getTime() - record.createdAt.getTime(),
    createdAt: record.createdAt.toISOString(),
    lastUpdatedAt: updatedAt.toISOString(),
    pollInterval: TASK_POLL_INTERVAL_MS,
    ...(statusMessage ? { statusMessage } : {}),
  };
}
