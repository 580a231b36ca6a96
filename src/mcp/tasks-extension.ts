import {
  CLIENT_CAPABILITIES_META_KEY,
  MissingRequiredClientCapabilityError,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { type CallToolResult, ErrorCode, type Task } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { protocolError } from './protocol-errors.ts';
import type { FindTask } from './tasks.ts';

/**
 * The Tasks extension of MCP 2026-07-28 (`io.modelcontextprotocol/tasks`): the same tasks as
 * 2025-11-25's (tasks.ts: kept in McpTask, their state read from the resource), shown the way the
 * extension says. The server decides: a client that declares the extension on its request gets,
 * for a call whose work goes on (a server still provisioning), a task handle (`resultType:
 * "task"`) instead of the answer; a call that is done or refused answers as it always does.
 * `tasks/get` shows the task, with the answer inline once it is completed; `tasks/update` has
 * nothing to take (these tasks never ask for input) and `tasks/cancel` is acknowledged, as the
 * extension requires, while the provider's work, which has no undo, goes on to its end.
 * `svc mcp` passes a 2026-07-28 client's calls and these requests on to /mcp (stdio-modern.ts).
 */

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** Whether the request's client declared the extension in its per-request capabilities. */
export function declaresTasks(envelope: unknown): boolean {
  const capabilities = (envelope as Record<string, unknown> | undefined)?.[CLIENT_CAPABILITIES_META_KEY] as
    | { extensions?: Record<string, unknown> }
    | undefined;
  const declared = capabilities?.extensions?.[TASKS_EXTENSION];
  return typeof declared === 'object' && declared !== null;
}

/** The handle a tools/call answers in place of its result (CreateTaskResult). */
export function createTaskResult(task: Task): Record<string, unknown> {
  return { resultType: 'task', ...detailedTask(task) };
}

/** The task as the extension shows it (DetailedTask), from 2025-11-25's: the answer inline once completed. */
function detailedTask(
  { taskId, status, statusMessage, createdAt, lastUpdatedAt, ttl, pollInterval }: Task,
  result?: CallToolResult,
): Record<string, unknown> {
  return {
    taskId,
    status,
    ...(statusMessage ? { statusMessage } : {}),
    createdAt,
    lastUpdatedAt,
    ttlMs: ttl,
    ...(pollInterval ? { pollIntervalMs: pollInterval } : {}),
    // The answer as the call would have answered it, its resultType included (the extension's schema).
    ...(status === 'completed' && result ? { result: { ...result, resultType: 'complete' } } : {}),
  };
}

const TASK_REQUEST = z.object({ taskId: z.string().min(1) });

/** Declares the extension on `server` and answers its methods with the tasks `find` reads. */
export function serveTasksExtension(server: Server, find: FindTask): void {
  /** The credential's task, for a client that declared the extension on this request. */
  async function taskOf(taskId: string, ctx: ServerContext) {
    if (!declaresTasks(ctx.mcpReq.envelope))
      throw new MissingRequiredClientCapabilityError(
        { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
        `Declare the ${TASKS_EXTENSION} extension in this request's client capabilities to follow a task.`,
      );
    const found = await find(taskId);
    if (!found)
      throw protocolError(ErrorCode.InvalidParams, `Failed to retrieve task: task ${taskId} not found or expired.`);
    return found;
  }
  server.setRequestHandler('tasks/get', { params: TASK_REQUEST }, async ({ taskId }, ctx) => {
    const { task, result } = await taskOf(taskId, ctx);
    return detailedTask(task, result);
  });
  // These tasks never ask for input: every response is for a key that is not outstanding, and
  // ignored. (The SDK takes `inputResponses` off the params, as on every 2026-07-28 request.)
  server.setRequestHandler('tasks/update', { params: TASK_REQUEST }, async ({ taskId }, ctx) => {
    if (typeof ctx.mcpReq.inputResponses !== 'object' || ctx.mcpReq.inputResponses === null)
      throw protocolError(ErrorCode.InvalidParams, 'Invalid params for tasks/update: inputResponses is required.');
    await taskOf(taskId, ctx);
    return {};
  });
  server.setRequestHandler('tasks/cancel', { params: TASK_REQUEST }, async ({ taskId }, ctx) => {
    await taskOf(taskId, ctx);
    return {};
  });
  server.registerCapabilities({ extensions: { [TASKS_EXTENSION]: {} } });
}
