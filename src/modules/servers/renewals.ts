import type { PrismaClient } from '../../generated/prisma/client.ts';
import type { Tx } from '../../db/tx.ts';
import type { TenantDb } from '../../db/tenant.ts';
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
  return (await renewing(db, now, take)).map(({ server, items }) => ({
    accountId: server.accountId,
    resourceId: server.id,
    periodStart: server.paidUntil!,
    periodEnd: addMonths(server.paidUntil!, 1),
    items,
  }));
}

/**
 * The account's standalone servers whose renewal date falls by `until` (already past included: a
 * renewal still unpaid), soonest first: when, and what the renewal will bill (the items of
 * serverRenewalsDue, summed). The account summary reads it.
 */
export async function serverRenewalsBy(db: TenantDb, until: Date, take: number) {
  return (await renewing(db, until, take)).map(({ server, items }) => ({
    id: server.id,
    label: server.label,
    renewsAt: server.paidUntil!,
    amountUsdCents: items.reduce((sum, i) => sum + i.amountUsdCents, 0),
  }));
}

/** Standalone servers renewing by `until` and the items their renewal bills. */
async function renewing(db: PrismaClient | Tx, until: Date, take: number) {
  const due = await db.server.findMany({
    where: { poolId: null, paidUntil: { lte: until }, ...VISIBLE },
    orderBy: [{ paidUntil: 'asc' }, { id: 'asc' }],
    take,
    include: { addons: { where: { activeType: { not: null } }, orderBy: { id: 'asc' } } },
  });
  const out = [];
  for (const server of due) {
    const plan = await getServerPlan(db, server.productId);
    const addons = await Promise.all(
      server.addons.map(async (a) => ({ row: a, product: await getAddonProduct(db, a.productId) })),
    );
    const items: DueRenewal['items'] = [
      { description: `Server "${server.label}" (${server.productId})`, amountUsdCents: plan?.monthlyUsdCents ?? 0 },
      ...addons.map(({ row, product }) => ({
        description: `${product?.name ?? row.productId} on "${server.label}"`,
        amountUsdCents: row.monthlyUsdCents,
      })),
    ];
    out.push({ server, items });
  }
  return out;
}

/** Moves the paid-up period on by one renewal; false when it is not at `from` (already moved). */
export async function extendServerPaidUntil(tx: Tx, serverId: string, from: Date, to: Date): Promise<boolean> {
  const { count } = await tx.server.updateMany({ where: { id: serverId, paidUntil: from }, data: { paidUntil: to } });
  return count === 1;
}
