import type { TenantDb } from '../../db/tenant.ts';
import { badRequest, notFound, refusal as rule } from '../../errors.ts';
import { ProviderRefusal, type ServerProvider } from '../../provider/types.ts';
import type { Tx } from '../../db/tx.ts';
import { z } from 'zod';

/** A pool's label, free text (stored trimmed). */
export const LABEL_RULES = z.string().trim().min(1).max(64);

/**
 * A server's label: also its host name on the web console and at the provider, so the characters
 * of one (stored trimmed).
 */
export const SERVER_LABEL_RULES = LABEL_RULES.regex(
  /^\w([\w.-]*\w)?$/,
  'letters, digits, dots, hyphens and underscores, with no dot or hyphen at either end (such as "web-1")',
);

// Loading, locking and checking one server row: the first steps of every server operation.

/** What a service call needs from the request: the tenant-scoped db plus the instance's parts. */
export interface ServiceContext {
  db: TenantDb;
  /** The caller; services read the account id from here, never from the account table. */
  principal: { accountId: string; scopes?: ReadonlySet<string> } | null;
  app: { provider: ServerProvider; clock: { now(): Date }; config: { publicBaseUrl: string } };
}

/** The states a customer sees a server in (`terminated` only in the answer that terminates it). */
export const SERVER_STATES = [
  'provisioning',
  'running',
  'stopped',
  'rebooting',
  'restoring',
  'reinstalling',
  'suspended',
] as const;

/** Terminated servers are gone for the customer: lists and lookups never show them. */
export const VISIBLE = { status: { not: 'terminated' } };
/** The same rule in the hand-written statements, on the server row `alias`. */
export const visibleServerSql = (alias: string) => `${alias}.status <> 'terminated'`;

export async function getServer(db: TenantDb | Tx, id: string, query: object = {}) {
  const server = await db.server.findFirst({ ...query, where: { id, ...VISIBLE } });
  if (!server) throw notFound('Server');
  return server;
}

/**
 * How an operation that starts a server's work is followed (its `settles`, src/schema/operation.ts):
 * the server is read (`server`, GET /servers/:id) until it leaves the states the work passes through.
 */
export const SERVER_SETTLES = { read: 'server', pending: ['provisioning', 'rebooting', 'restoring', 'reinstalling'] };

/** The states requireOperable refuses with a 409. */
export const INOPERABLE_STATES = ['provisioning', 'rebooting', 'restoring', 'reinstalling', 'suspended'] as const;

/** How the description of an operation that calls requireOperable says so (MCP says it once: src/mcp/conventions.ts). */
export const INOPERABLE_409 = `409 while the server is ${INOPERABLE_STATES.slice(0, -1).join(', ')} or ${INOPERABLE_STATES.at(-1)}.`;

/** The one rule of requireOperable: every operation that acts on a server meets it. */
export const SERVER_BUSY = rule(
  409,
  'The server is provisioning, suspended, rebooting, being restored from a snapshot or reinstalled: it can be acted on once it is running or stopped',
);

/** States in which the customer can act on a server (every state but INOPERABLE_STATES). */
export function requireOperable(server: { status: string }, what: string) {
  const why = inoperable(server.status, what);
  if (why) throw SERVER_BUSY.error(why);
}

/** Why a server in `status` cannot take `what` now (requireOperable's 409), or null when it can. */
export function inoperable(status: string, what: string): string | null {
  if (status === 'provisioning') return `The server is still provisioning; ${what} is possible once it is running.`;
  if (status === 'suspended') return `The server is suspended; ${what} is not possible until it is reactivated.`;
  if (status === 'rebooting') return `The server is rebooting; retry ${what} in a minute.`;
  if (status === 'restoring') return `The server is being restored from a snapshot; retry ${what} in a minute.`;
  if (status === 'reinstalling') return `The server is being reinstalled; retry ${what} once it is running.`;
  return null;
}

/** Locks the server row for the rest of the transaction: concurrent writes on one server queue here. */
export async function lockServer(tx: Tx, id: string): Promise<void> {
  await tx.$queryRaw`SELECT "id" FROM "Server" WHERE "id" = ${id} FOR UPDATE`;
}

/** Status a server returns to after a transient state (the one it had before). */
export type Resting = 'running' | 'stopped';
export function resting(status: string): Resting {
  return status === 'stopped' ? 'stopped' : 'running';
}

export function refusal(err: unknown): never {
  if (err instanceof ProviderRefusal) throw badRequest(err.message);
  throw err;
}
