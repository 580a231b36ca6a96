import type { App } from '../../app-services.ts';
import { seal, unseal } from '../../core/sealed.ts';
import { ID_PREFIX, newId } from '../../db/ids.ts';

/**
 * The records of MCP tool calls run as tasks (src/mcp/tasks.ts): each call's answer, sealed with
 * the app's key (an answer may carry what the account would not want at rest in clear), the
 * resource whose state says when the work settles, and when the record expires. A record is
 * seen only by the credential that made it, and only until it expires.
 */

/** How long a task is kept when its client asks for no TTL, and the most it may ask for. */
export const TASK_TTL_DEFAULT_MS = 60 * 60 * 1000;
export const TASK_TTL_MAX_MS = 24 * 60 * 60 * 1000;

export interface TaskOwner {
  accountId: string;
  credentialId: string;
}

export interface TaskRecord {
  id: string;
  tool: string;
  /** The resource to read until it settles; null when `result` was final at once. */
  resourceId: string | null;
  /** The call's answer, as the tool answered it. */
  result: unknown;
  createdAt: Date;
  settledAt: Date | null;
  expiresAt: Date;
}

const belongsTo = (id: string, owner: TaskOwner) => `mcp task ${id} ${owner.accountId} ${owner.credentialId}`;

/** Records a task; the owner's expired records go at the same time. */
export async function recordTask(
  app: Pick<App, 'prisma' | 'clock' | 'webhookSecretKey'>,
  owner: TaskOwner,
  call: { tool: string; resourceId: string | null; result: unknown; ttlMs: number },
): Promise<TaskRecord> {
  const now = app.clock.now();
  const id = newId(ID_PREFIX.mcpTask, now.getTime());
  const record = {
    id,
    tool: call.tool,
    resourceId: call.resourceId,
    createdAt: now,
    settledAt: call.resourceId === null ? now : null,
    expiresAt: new Date(now.getTime() + call.ttlMs),
  };
  await app.prisma.mcpTask.create({
    data: {
      ...record,
      ...owner,
      result: seal(app.webhookSecretKey, belongsTo(id, owner), JSON.stringify(call.result)),
    },
  });
  await app.prisma.mcpTask.deleteMany({ where: { accountId: owner.accountId, expiresAt: { lte: now } } });
  return { ...record, result: call.result };
}

/** The owner's task `id`, or null: unknown, another credential's, or expired. */
export async function findTask(
  app: Pick<App, 'prisma' | 'clock' | 'webhookSecretKey'>,
  owner: TaskOwner,
  id: string,
): Promise<TaskRecord | null> {
  const row = await app.prisma.mcpTask.findFirst({
    where: { id, ...owner, expiresAt: { gt: app.clock.now() } },
  });
  return row ? opened(app, owner, row) : null;
}

/** The owner's live tasks, newest first, `limit` after the task `after` (keyset on the time-sorted id). */
export async function listTasks(
  app: Pick<App, 'prisma' | 'clock' | 'webhookSecretKey'>,
  owner: TaskOwner,
  limit: number,
  after?: string,
): Promise<TaskRecord[]> {
  const rows = await app.prisma.mcpTask.findMany({
    where: { ...owner, expiresAt: { gt: app.clock.now() }, ...(after ? { id: { lt: after } } : {}) },
    orderBy: { id: 'desc' },
    take: limit,
  });
  return rows.map((row) => opened(app, owner, row));
}

/** Notes when the task was first seen settled (its lastUpdatedAt from then on); the time kept. */
export async function markSettled(
  app: Pick<App, 'prisma' | 'clock'>,
  owner: TaskOwner,
  task: TaskRecord,
): Promise<Date> {
  if (task.settledAt) return task.settledAt;
  const now = app.clock.now();
  await app.prisma.mcpTask.updateMany({ where: { id: task.id, ...owner, settledAt: null }, data: { settledAt: now } });
  return now;
}

function opened(
  app: Pick<App, 'webhookSecretKey'>,
  owner: TaskOwner,
  row: {
    id: string;
    tool: string;
    resourceId: string | null;
    result: string;
    createdAt: Date;
    settledAt: Date | null;
    expiresAt: Date;
  },
): TaskRecord {
  const { result, ...rest } = row;
  return { ...rest, result: JSON.parse(unseal(app.webhookSecretKey, belongsTo(row.id, owner), result)) };
}
