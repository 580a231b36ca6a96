import { ID_PREFIX, newId } from '../../db/ids.ts';
import { isUniqueViolation, type Tx } from '../../db/tx.ts';
import { badRequest, notFound } from '../../errors.ts';
import { recordEvent } from '../../events/outbox.ts';
import type { AddonSpec, ServerProvider } from '../../provider/types.ts';
import { addMonths, cycleOf, prorate } from '../billing/proration.ts';
import { perMonth, walletMove, type Quote } from '../billing/quotes.ts';
import { debit, formatUsd } from '../billing/wallet.ts';
import { getAddonProduct, listAddonProducts, type AddonProduct } from '../catalogue/service.ts';
import { requireAction } from './actions.ts';
import { getServer, lockServer, refusal, type ServiceContext } from './server-row.ts';

// Server add-ons: extra addresses and services, attached and detached with proration.

const STOCK_NOTE =
  'Temporarily out of stock: the datacenter is waiting for new address space. Check back in a few days.';

function addonSpec(p: AddonProduct): AddonSpec {
  return {
    type: p.type,
    ips: p.ips,
    distinctSubnets: p.distinctSubnets,
    ...(p.stock !== null ? { stockKey: `addon:${p.type}`, initialStock: p.stock } : {}),
  };
}

/** The server's billing cycle: from its renewal date (a server not yet provisioned would start a cycle now). */
function serverCycle(server: { paidUntil: Date | null }, now: Date) {
  return cycleOf(server.paidUntil ?? addMonths(now, 1), now);
}

/** What attaching an add-on debits now: its monthly price prorated to the end of the server's cycle. */
function addonCharge(product: AddonProduct, server: { paidUntil: Date | null }, now: Date): number {
  return prorate(product.monthlyUsdCents, serverCycle(server, now));
}

/**
 * What attaching an add-on costs (MCP asks a person with it): addonCharge, what attachAddon
 * debits, and its monthly price from the next renewal. Nothing is attached.
 */
export async function quoteAddonAttach(ctx: ServiceContext, serverId: string, addonId: string): Promise<Quote> {
  const product = await addonProduct(ctx, serverId, addonId);
  const server = await getServer(ctx.db, serverId);
  const charge = addonCharge(product, server, ctx.app.clock.now());
  return {
    message: `Attach ${product.name} to server ${server.label}: ${formatUsd(charge)} charged now (prorated to the renewal), then ${perMonth(product.monthlyUsdCents)}; ${await walletMove(ctx.db, -charge)}.`,
    terms: { addonId: product.id, chargeNowUsdCents: charge, monthlyUsdCents: product.monthlyUsdCents },
  };
}

/** An add-on of the catalogue by id: 400 naming addonId otherwise. */
async function addonProduct(ctx: ServiceContext, serverId: string, addonId: string): Promise<AddonProduct> {
  const product = (await listAddonProducts(ctx.db)).find((p) => p.id === addonId);
  if (!product)
    throw badRequest(
      `addonId "${addonId}" is not an add-on in the catalogue; see GET /servers/${serverId}/addons.`,
      'addonId',
    );
  return product;
}

/**
 * The add-ons the server's plan offers, with prices in cents. Servers inside a capacity pool
 * take addresses from the pool and are offered none.
 */
export async function listServerAddons(ctx: ServiceContext, serverId: string) {
  const server = await getServer(ctx.db, serverId);
  if (server.poolId) return [];
  const now = ctx.app.clock.now();
  const [products, active] = await Promise.all([
    listAddonProducts(ctx.db),
    ctx.db.serverAddon.findMany({ where: { serverId, activeType: { not: null } } }),
  ]);
  const cycle = serverCycle(server, now);
  const out = [];
  for (const p of products) {
    const stock = await ctx.app.provider.addonStock(ctx.db, addonSpec(p));
    const available = stock === null || stock > 0;
    out.push({
      id: p.id,
      name: p.name,
      type: p.type,
      ipCount: p.ips,
      active: active.some((a) => a.productId === p.id),
      monthlyUsdCents: p.monthlyUsdCents,
      proratedUsdCents: prorate(p.monthlyUsdCents, cycle),
      ownedByType: active.some((a) => a.type === p.type),
      available,
      stockNote: available ? null : STOCK_NOTE,
    });
  }
  return out;
}

/**
 * Attaches an add-on: debits the wallet at once, prorated to the end of the server's cycle,
 * and routes its addresses (to be configured inside the guest). 400 when an add-on of the
 * same type is active, stock is short, or the balance does not cover it; nothing is
 * debited then (one transaction). The server row lock plus the unique (serverId,
 * activeType) index make concurrent attaches of one type yield exactly one.
 */
export async function attachAddon(ctx: ServiceContext, serverId: string, addonId: string) {
  const now = ctx.app.clock.now();
  const product = await addonProduct(ctx, serverId, addonId);
  try {
    return await ctx.db.$transaction(async (tx) => {
      await lockServer(tx, serverId);
      const server = await getServer(tx, serverId);
      requireAction('addonAttach', server);
      const owned = await tx.serverAddon.findFirst({ where: { serverId, activeType: product.type } });
      if (owned)
        throw badRequest(
          `An add-on of type ${product.type} (${owned.productId}) is already active on this server; detach it first to change tier.`,
          'addonId',
        );
      const charge = addonCharge(product, server, now);
      const id = newId(ID_PREFIX.serverAddon, now.getTime());
      // The row first: the unique index refuses a second active add-on of this type.
      await tx.serverAddon.create({
        data: {
          id,
          accountId: server.accountId,
          serverId,
          productId: product.id,
          type: product.type,
          activeType: product.type,
          monthlyUsdCents: product.monthlyUsdCents,
          chargedUsdCents: charge,
          createdAt: now,
        },
      });
      const stock = await ctx.app.provider.addonStock(tx, addonSpec(product));
      if (stock !== null && stock < 1) throw badRequest(`${product.name} is out of stock. ${STOCK_NOTE}`, 'addonId');
      const txn =
        charge > 0
          ? await debit(tx, {
              accountId: server.accountId,
              amountUsdCents: charge,
              kind: 'addon_purchase',
              description: `${product.name} on ${server.label}, prorated to the end of the cycle`,
              reference: serverId,
              now,
            })
          : null;
      const { ips } = await ctx.app.provider.attachAddon(tx, serverId, addonSpec(product), now).catch(refusal);
      if (ips.length) {
        await tx.serverIp.createMany({
          data: ips.map((ip) => ({
            id: newId(ID_PREFIX.serverIp, now.getTime()),
            accountId: server.accountId,
            serverId,
            addonId: id,
            address: ip.address,
            version: ip.version,
            zoneHosted: ip.zoneHosted,
            createdAt: now,
          })),
        });
      }
      await recordEvent(
        tx,
        server.accountId,
        'server.addon.attached',
        { serverId, addonId: product.id, type: product.type, chargedUsdCents: charge },
        now,
      );
      return {
        id: product.id,
        serverId,
        type: product.type,
        name: product.name,
        monthlyUsdCents: product.monthlyUsdCents,
        chargedUsdCents: charge,
        transactionId: txn?.id ?? null,
        ips: ips.map((ip) => ip.address),
        attachedAt: now,
      };
    });
  } catch (err) {
    if (isUniqueViolation(err))
      throw badRequest(
        `An add-on of type ${product.type} is already active on this server; detach it first to change tier.`,
        'addonId',
      );
    throw err;
  }
}

/** Detaches an add-on: no refund, the price drops from the next renewal, its addresses stop routing at once. */
export async function detachAddon(ctx: ServiceContext, serverId: string, addonId: string) {
  const now = ctx.app.clock.now();
  return ctx.db.$transaction(async (tx) => {
    await lockServer(tx, serverId);
    const server = await getServer(tx, serverId);
    const row = await tx.serverAddon.findFirst({ where: { serverId, productId: addonId, activeType: { not: null } } });
    if (!row) throw notFound('Active add-on');
    const released = await endAddon(tx, ctx.app.provider, row, now);
    await recordEvent(tx, server.accountId, 'server.addon.detached', { serverId, addonId, type: row.type }, now);
    return { id: addonId, serverId, detached: true, releasedIps: released };
  });
}

async function endAddon(
  tx: Tx,
  provider: ServerProvider,
  row: { id: string; serverId: string; productId: string; type: string },
  now: Date,
): Promise<string[]> {
  const product = await getAddonProduct(tx, row.productId);
  const ips = await tx.serverIp.findMany({
    where: { addonId: row.id },
    select: { address: true },
    orderBy: { address: 'asc' },
  });
  const addresses = ips.map((ip) => ip.address);
  await tx.serverIp.deleteMany({ where: { addonId: row.id } });
  await provider.detachAddon(
    tx,
    row.serverId,
    product ? addonSpec(product) : { type: row.type, ips: addresses.length },
    addresses,
    now,
  );
  await tx.serverAddon.update({ where: { id: row.id }, data: { activeType: null, endedAt: now } });
  return addresses;
}

export async function endAddons(tx: Tx, provider: ServerProvider, serverId: string, now: Date): Promise<void> {
  for (const row of await tx.serverAddon.findMany({ where: { serverId, activeType: { not: null } } }))
    await endAddon(tx, provider, row, now);
}
