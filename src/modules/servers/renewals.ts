import type { PrismaClient } from '../../generated/prisma/client.ts';
import type { Tx } from '../../db/tx.ts';
import { addMonths } from '../billing/proration.ts';
import { getAddonProduct, getServerPlan } from '../catalogue/service.ts';
import type { DueRenewal } from '../area-runtime.ts';
import { VISIBLE } from './server-row.ts';

// Servers' monthly renewals, read and extended by the billing renewal job.

/**
 * Standalone servers whose paid-up period has ended: what renews and for how much. A server
 * renews monthly from its renewal date at its current plan's price (a plan change bills the
 * new plan here) plus each active add-on at the price it was attached at. Pool servers renew
 * with their pool; terminated ones never.
 */
export async function serverRenewalsDue(db: PrismaClient | Tx, now: Date, take = 200): Promise<DueRenewal[]> {
  const due = await db.server.findMany({
    where: { poolId: null, paidUntil: { lte: now }, ...VISIBLE },
    orderBy: [{ paidUntil: 'asc' }, { id: 'asc' }],
    take,
    include: { addons: { where: { activeType: { not: null } }, orderBy: { id: 'asc' } } },
  });
  const out: DueRenewal[] = [];
  for (const server of due) {
    const plan = await getServerPlan(db, server.productId);
    const periodStart = server.paidUntil!;
    const addons = await Promise.all(
      server.addons.map(async (a) => ({ row: a, product: await getAddonProduct(db, a.productId) })),
    );
    out.push({
      accountId: server.accountId,
      resourceId: server.id,
      periodStart,
      periodEnd: addMonths(periodStart, 1),
      items: [
        { description: `Server "${server.label}" (${server.productId})`, amountUsdCents: plan?.monthlyUsdCents ?? 0 },
        ...addons.map(({ row, product }) => ({
          description: `${product?.name ?? row.productId} on "${server.label}"`,
          amountUsdCents: row.monthlyUsdCents,
        })),
      ],
    });
  }
  return out;
}

/** Moves the paid-up period on by one renewal; false when it is not at `from` (already moved). */
export async function extendServerPaidUntil(tx: Tx, serverId: string, from: Date, to: Date): Promise<boolean> {
  const { count } = await tx.server.updateMany({ where: { id: serverId, paidUntil: from }, data: { paidUntil: to } });
  return count === 1;
}
