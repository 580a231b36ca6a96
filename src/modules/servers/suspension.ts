import type { PrismaClient } from '../../generated/prisma/client.ts';
import type { Tx } from '../../db/tx.ts';
import type { TenantDb } from '../../db/tenant.ts';
import { badRequest, notFound } from '../../errors.ts';
import { announceChange } from '../../events/live-changes.ts';
import { recordEvent } from '../../events/outbox.ts';
import type { ServerProvider } from '../../provider/types.ts';
import { lockServer, VISIBLE } from './server-row.ts';
import { z } from 'zod';
import { checkInput } from '../../core/input-schemas.ts';

// Suspension and reactivation, by an operator or by billing (an unpaid renewal).

/** The operator's suspension reason (the operator API is not GraphQL, so the rule is enforced here). */
const SUSPEND_REASON_RULES = z.string().trim().min(1).max(500);

/** Operator suspension (for example expiry): powered off, `suspended` with the reason, `server.suspended`. Repeating it changes nothing. */
export async function suspendServer(
  prisma: PrismaClient,
  provider: ServerProvider,
  serverId: string,
  reason: unknown,
  now: Date,
) {
  if (typeof reason !== 'string') throw badRequest('reason must be a string of 1 to 500 characters.', 'reason');
  checkInput(SUSPEND_REASON_RULES, reason, 'reason');
  return prisma.$transaction(async (tx) => {
    const server = await suspendServerTx(tx, provider, serverId, reason.trim(), now);
    if (!server) throw notFound('Server');
    return server;
  });
}

/** Suspension in the caller's transaction (operator, billing); null when the server does not exist. */
export async function suspendServerTx(tx: Tx, provider: ServerProvider, serverId: string, reason: string, now: Date) {
  await lockServer(tx, serverId);
  const server = await tx.server.findFirst({ where: { id: serverId, ...VISIBLE } });
  if (!server) return null;
  if (server.status === 'suspended') return server;
  await provider.suspend(tx, serverId, reason, now);
  const updated = await tx.server.update({
    where: { id: serverId },
    data: { status: 'suspended', suspendReason: reason },
  });
  await recordEvent(tx, server.accountId, 'server.suspended', { serverId, reason }, now);
  return updated;
}

/**
 * Lifts a suspension (its cause was settled, e.g. the overdue invoice was paid): the server is
 * stopped; the customer starts it. No account event reports it: a live change does.
 */
export async function reactivateServer(tx: Tx, serverId: string, now: Date): Promise<void> {
  const { count } = await tx.server.updateMany({
    where: { id: serverId, status: 'suspended' },
    data: { status: 'stopped', suspendReason: null },
  });
  if (!count) return;
  const { accountId } = await tx.server.findUniqueOrThrow({ where: { id: serverId }, select: { accountId: true } });
  await announceChange(tx, accountId, 'server.status.changed', { serverId, status: 'stopped' }, now);
}

/** The account's suspended servers and why, oldest first (the account summary reads it). */
export async function suspendedServers(db: TenantDb, take: number) {
  return db.server.findMany({
    where: { status: 'suspended' },
    orderBy: { id: 'asc' },
    take,
    select: { id: true, label: true, suspendReason: true },
  });
}
