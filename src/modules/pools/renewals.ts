import type { Tx } from '../../db/tx.ts';
import type { TenantDb } from '../../db/tenant.ts';
import { announceChange } from '../../events/live-changes.ts';
import { recordEvent } from '../../events/outbox.ts';
import type { PrismaClient } from '../../generated/prisma/client.ts';
import type { ServerProvider } from '../../provider/types.ts';
import { addMonths } from '../billing/proration.ts';
import * as servers from '../servers/pool-members.ts';
import type { DueRenewal } from '../area-runtime.ts';
import { reactivateServer, suspendServerTx } from '../servers/suspension.ts';

// Pool renewals, called by the billing renewal job.

/** Pools whose paid-up period has ended: they renew monthly at their current monthly price (resizes included). */
export async function poolRenewalsDue(db: Tx | PrismaClient, now: Date, take = 200): Promise<DueRenewal[]> {
  const due = await db.pool.findMany({
    where: { paidUntil: { lte: now }, status: { in: ['active', 'suspended'] } },
    orderBy: [{ paidUntil: 'asc' }, { id: 'asc' }],
    take,
  });
  return due.map((pool) => ({
    accountId: pool.accountId,
    resourceId: pool.id,
    periodStart: pool.paidUntil,
    periodEnd: addMonths(pool.paidUntil, 1),
    items: [
      {
        description: `Capacity pool "${pool.label}" (${pool.productId}: ${pool.vcpu} vCPU, ${pool.ram2gb * 2} GB RAM, ${pool.disk100 * 100} GB disk, ${pool.ip16 * 16} IPv4)`,
        amountUsdCents: pool.monthlyUsdCents,
      },
    ],
  }));
}

export async function extendPoolPaidUntil(tx: Tx, poolId: string, from: Date, to: Date): Promise<boolean> {
  const { count } = await tx.pool.updateMany({ where: { id: poolId, paidUntil: from }, data: { paidUntil: to } });
  return count === 1;
}

/** Unpaid renewal: the pool is `suspended` (`pool.suspended`) and every server inside it is suspended with the reason (`server.suspended`). False when the pool is gone. */
export async function suspendPool(
  tx: Tx,
  provider: ServerProvider,
  poolId: string,
  reason: string,
  now: Date,
): Promise<boolean> {
  const { count } = await tx.pool.updateMany({
    where: { id: poolId, status: 'active' },
    data: { status: 'suspended' },
  });
  if (!count) return (await tx.pool.count({ where: { id: poolId, status: 'suspended' } })) > 0;
  const { accountId } = await tx.pool.findUniqueOrThrow({ where: { id: poolId }, select: { accountId: true } });
  await recordEvent(tx, accountId, 'pool.suspended', { poolId, reason }, now);
  for (const server of await servers.poolServers(tx, poolId))
    await suspendServerTx(tx, provider, server.id, reason, now);
  return true;
}

/**
 * The overdue renewal was paid: the pool is active again and its servers stopped (the customer
 * starts them). No account event reports it: live changes do, the pool's and each server's.
 */
export async function reactivatePool(tx: Tx, poolId: string, now: Date): Promise<void> {
  const { count } = await tx.pool.updateMany({
    where: { id: poolId, status: 'suspended' },
    data: { status: 'active' },
  });
  if (!count) return;
  const { accountId } = await tx.pool.findUniqueOrThrow({ where: { id: poolId }, select: { accountId: true } });
  await announceChange(tx, accountId, 'pool.status.changed', { poolId, status: 'active' }, now);
  for (const server of await servers.poolServers(tx, poolId)) await reactivateServer(tx, server.id, now);
}

/**
 * The account's pools whose renewal date falls by `until` (already past included: a renewal still
 * unpaid), soonest first, at their monthly price (the account summary reads it).
 */
export async function poolRenewalsBy(db: TenantDb, until: Date, take: number) {
  return db.pool.findMany({
    where: { paidUntil: { lte: until }, status: { in: ['active', 'suspended'] } },
    orderBy: [{ paidUntil: 'asc' }, { id: 'asc' }],
    take,
    select: { id: true, label: true, paidUntil: true, monthlyUsdCents: true },
  });
}

/** The account's suspended pools (an unpaid renewal), oldest first (the account summary reads it). */
export async function suspendedPools(db: TenantDb, take: number) {
  return db.pool.findMany({
    where: { status: 'suspended' },
    orderBy: { id: 'asc' },
    take,
    select: { id: true, label: true },
  });
}
