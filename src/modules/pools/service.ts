import { accountPage } from '../../db/account-page.ts';
import { recordEvent } from '../../events/outbox.ts';
import type { TenantDb } from '../../db/tenant.ts';
import { ID_PREFIX, newId } from '../../db/ids.ts';
import type { Tx } from '../../db/tx.ts';
import { badRequest, notFound, refusal as rule } from '../../errors.ts';
import { ProviderRefusal, type CapacityUnits } from '../../provider/types.ts';
import { paginate, type PageArgs } from '../../core/paging.ts';
import { addMonths, cycleOf, prorate } from '../billing/proration.ts';
import { perMonth, walletMove, type Quote } from '../billing/quotes.ts';
import { debit, formatUsd } from '../billing/wallet.ts';
import {
  getPoolProduct,
  listPoolProducts,
  POOL_UNITS,
  toPoolProduct,
  type PoolProduct,
  type PoolUnit,
  type PoolUnits,
} from '../catalogue/service.ts';
import * as servers from '../servers/pool-members.ts';
import type { ServiceContext } from '../servers/server-row.ts';
import { readPoolDetail, readPoolDetails, type PoolDetailRow } from './pool-read.ts';

/** What one unit of each slider resolves to. */
export const UNIT_SIZES = { vcpu: 1, ram2gb: 2048, disk100: 100, ip16: 16 } as const;
const UNIT_LABELS: Record<PoolUnit, string> = {
  vcpu: '1 vCPU',
  ram2gb: '2 GB RAM',
  disk100: '100 GB disk',
  ip16: '16 IPv4 addresses',
};

/** Deleted pools are gone for the customer, like terminated servers. */
const VISIBLE = { status: { not: 'deleted' } };

type PoolRow = NonNullable<Awaited<ReturnType<TenantDb['pool']['findFirst']>>>;

// ---------------------------------------------------------------- pricing

/** Monthly price of a shape at per-unit rates, in cents. */
export function monthlyPrice(units: PoolUnits, rates: PoolUnits): number {
  return POOL_UNITS.reduce((sum, u) => sum + units[u] * rates[u], 0);
}

/** Cost per month of the growth only (units that go up, at the sold rates); shrinking units are not netted against it. */
export function growthPrice(from: PoolUnits, to: PoolUnits, rates: PoolUnits): number {
  return POOL_UNITS.reduce((sum, u) => sum + Math.max(0, to[u] - from[u]) * rates[u], 0);
}

export function resolved(units: PoolUnits) {
  return {
    vcpu: units.vcpu * UNIT_SIZES.vcpu,
    ramMb: units.ram2gb * UNIT_SIZES.ram2gb,
    diskGb: units.disk100 * UNIT_SIZES.disk100,
    ips: units.ip16 * UNIT_SIZES.ip16,
  };
}

export function unitsOf(p: { vcpu: number; ram2gb: number; disk100: number; ip16: number }): PoolUnits {
  return { vcpu: p.vcpu, ram2gb: p.ram2gb, disk100: p.disk100, ip16: p.ip16 };
}

/** 400 naming the first unit that is missing, not an integer, or outside the product's bounds. */
function checkUnits(input: Partial<Record<PoolUnit, unknown>>, product: PoolProduct): PoolUnits {
  const out = {} as PoolUnits;
  for (const u of POOL_UNITS) {
    const v = input[u];
    const { min, max } = product.bounds[u];
    if (typeof v !== 'number' || !Number.isInteger(v))
      throw badRequest(`${u} must be an integer from ${min} to ${max}.`, u);
    if (v < min || v > max)
      throw badRequest(`${u} = ${v} is outside the bounds of ${product.id}: ${min} to ${max}.`, u);
    out[u] = v;
  }
  return out;
}

async function requireProduct(db: TenantDb | Tx, productId: unknown, activeOnly = true): Promise<PoolProduct> {
  if (typeof productId !== 'string' || !productId) throw badRequest('productId is required.', 'productId');
  const product = await getPoolProduct(db, productId, activeOnly);
  if (!product)
    throw badRequest(
      `productId "${productId}" is not a pool product in the catalogue; see GET /pools/catalogue.`,
      'productId',
    );
  return product;
}

function refusal(err: unknown): never {
  if (err instanceof ProviderRefusal) throw badRequest(err.message);
  throw err;
}

// ---------------------------------------------------------------- catalogue and quotes

export async function poolCatalogue(db: TenantDb) {
  return (await listPoolProducts(db)).map((p) => ({
    productId: p.id,
    name: p.name,
    ratesCents: p.unitPricesCents,
    bounds: p.bounds,
    unitSizes: UNIT_LABELS,
  }));
}

function quoteOf(product: PoolProduct, units: PoolUnits, rates: PoolUnits) {
  return {
    productId: product.id,
    monthlyUsdCents: monthlyPrice(units, rates),
    breakdown: POOL_UNITS.map((u) => ({
      unit: u,
      quantity: units[u],
      unitPriceUsdCents: rates[u],
      amountUsdCents: units[u] * rates[u],
      description: UNIT_LABELS[u],
    })),
    resolved: {
      vcpu: units.vcpu,
      ramGb: units.ram2gb * 2,
      diskGb: units.disk100 * 100,
      ipv4Addresses: units.ip16 * 16,
    },
  };
}

/** Prices a selection at the live catalogue rates. Nothing is charged or reserved. */
export async function quotePool(db: TenantDb, input: { productId: unknown } & Partial<Record<PoolUnit, unknown>>) {
  const product = await requireProduct(db, input.productId);
  const units = checkUnits(input, product);
  return quoteOf(product, units, product.unitPricesCents);
}

// ---------------------------------------------------------------- views

function summary(pool: PoolRow) {
  const units = unitsOf(pool);
  return {
    id: pool.id,
    productId: pool.productId,
    label: pool.label,
    status: pool.status,
    ...units,
    quota: resolved(units),
    ratesCents: pool.ratesCents as PoolUnits,
    monthlyUsdCents: pool.monthlyUsdCents,
    renewsAt: pool.paidUntil,
    createdAt: pool.createdAt,
  };
}

/** A pool's detail inside a transaction (after a purchase or a resize): its Prisma reads. */
export async function detail(tx: Tx, pool: PoolRow) {
  const product = await getPoolProduct(tx, pool.productId, false);
  const [usage, list] = await Promise.all([servers.poolUsage(tx, pool.id), servers.poolServers(tx, pool.id)]);
  return detailOf({
    pool,
    product,
    usage,
    servers: list.map((s) => ({
      id: s.id,
      label: s.label,
      status: s.status,
      productId: s.productId,
      vcpu: s.vcpu,
      ramMb: s.ramMb,
      diskGb: s.diskGb,
      os: s.os,
      osTemplate: s.osTemplate,
      ips: s.ips.map((ip) => ip.address),
    })),
  });
}

function detailOf(d: Omit<PoolDetailRow, 'product'> & { product: PoolProduct | null }) {
  return { ...summary(d.pool), usage: d.usage, bounds: d.product?.bounds ?? null, servers: d.servers };
}

export async function findPool(db: TenantDb | Tx, id: string): Promise<PoolRow> {
  const pool = await db.pool.findFirst({ where: { id, ...VISIBLE } });
  if (!pool) throw notFound('Pool');
  return pool;
}

/** Locks the pool row for the rest of the transaction: resizes, server creations and IP changes of one pool queue here. */
export async function lockPool(tx: Tx, id: string): Promise<PoolRow> {
  await tx.$queryRaw`SELECT "id" FROM "Pool" WHERE "id" = ${id} FOR UPDATE`;
  return findPool(tx, id);
}

/** The account's pools but deleted ones (VISIBLE), newest first, as one statement (db/account-page.ts). */
export const poolPage = accountPage<PoolRow>('Pool', "r.status <> 'deleted'");

export async function listPools(db: TenantDb, args: PageArgs) {
  const page = await paginate(args, ID_PREFIX.pool, (q) => poolPage(db, q));
  return { ...page, data: page.data.map(summary) };
}

/** Pools by id in one statement (the graph's loaders): deleted pools read as missing. */
export async function poolsByIds(db: TenantDb, ids: readonly string[]) {
  return (await db.pool.findMany({ where: { id: { in: [...ids] }, ...VISIBLE } })).map(summary);
}

/** GET /pools/:id: one statement (pool-read.ts). */
export async function getPool(db: TenantDb, id: string) {
  const read = await readPoolDetail(db, id);
  if (!read) throw notFound('Pool');
  return detailOf({ ...read, product: read.product && toPoolProduct(read.product) });
}

/** The details of several pools in one statement (the graph's loaders), in the order of `ids`; a pool no longer visible is a 404 at its place. */
export async function getPools(db: TenantDb, ids: readonly string[]) {
  const reads = await readPoolDetails(db, ids);
  return ids.map((id) => {
    const read = reads.get(id);
    return read ? detailOf({ ...read, product: read.product && toPoolProduct(read.product) }) : notFound('Pool');
  });
}

// ---------------------------------------------------------------- buy, resize, delete

/**
 * Buys a pool: re-priced here from the catalogue (client totals are never trusted), the
 * datacenter capacity is reserved, the first month is debited at once and the IP block is
 * routed. 400 when the selection is outside the bounds, the datacenter lacks capacity or
 * the balance is short; nothing is debited then.
 */
export async function createPool(
  ctx: ServiceContext,
  input: { productId: unknown; label: string } & Partial<Record<PoolUnit, unknown>>,
) {
  const product = await requireProduct(ctx.db, input.productId);
  const label = String(input.label).trim();
  const units = checkUnits(input, product);
  const rates = product.unitPricesCents;
  const monthly = monthlyPrice(units, rates);
  const now = ctx.app.clock.now();
  const accountId = ctx.principal!.accountId;
  return ctx.db.$transaction(async (tx) => {
    const id = newId(ID_PREFIX.pool, now.getTime());
    await ctx.app.provider.adjustPoolCapacity(tx, product.id, product.capacity, units).catch(refusal);
    await debit(tx, {
      accountId,
      amountUsdCents: monthly,
      kind: 'pool_purchase',
      description: `Capacity pool "${label}" (${product.id}), first month`,
      reference: id,
      now,
    });
    const pool = await tx.pool.create({
      data: {
        id,
        accountId,
        productId: product.id,
        label,
        status: 'active',
        ...units,
        ratesCents: rates,
        monthlyUsdCents: monthly,
        paidUntil: addMonths(now, 1),
        createdAt: now,
      },
    });
    const ips = await ctx.app.provider.allocatePoolBlocks(tx, units.ip16, now);
    await servers.addPoolIps(tx, accountId, id, ips, now);
    await recordEvent(
      tx,
      accountId,
      'pool.created',
      { poolId: id, label, productId: product.id, status: 'active', ...units, monthlyUsdCents: monthly },
      now,
    );
    return detail(tx, pool);
  });
}

/** The OS families a server inside a pool can run. */
export const POOL_SERVER_OS_FAMILIES = ['linux'] as const;

export const POOL_SHAPE_BELOW_USE = rule(
  409,
  "The new shape is smaller than what the pool's servers and addresses use",
);

function checkHolds(units: PoolUnits, usage: { vcpu: number; ramMb: number; diskGb: number; ips: number }) {
  const q = resolved(units);
  const short = (['vcpu', 'ramMb', 'diskGb', 'ips'] as const).filter((k) => q[k] < usage[k]);
  if (short.length) {
    throw POOL_SHAPE_BELOW_USE.error(
      `The pool's servers hold more than this shape: ${short.map((k) => `${k} ${usage[k]} > ${q[k]}`).join(', ')}. Shrink or remove servers (or unassign addresses) first.`,
    );
  }
}

async function resizePlan(tx: Tx, pool: PoolRow, input: Partial<Record<PoolUnit, unknown>>, now: Date) {
  const product = await requireProduct(tx, pool.productId, false);
  const units = checkUnits(input, product);
  checkHolds(units, await servers.poolUsage(tx, pool.id));
  const rates = pool.ratesCents as PoolUnits;
  const from = unitsOf(pool);
  const cycle = cycleOf(pool.paidUntil, now);
  const current = monthlyPrice(from, rates);
  const next = monthlyPrice(units, rates);
  return {
    product,
    units,
    from,
    rates,
    cycle,
    current,
    next,
    chargeNow: prorate(growthPrice(from, units, rates), cycle),
  };
}

/**
 * The price of buying a pool (MCP asks a person with it): quotePool's, the catalogue rates
 * createPool charges, the first month debited now.
 */
export async function quotePoolPurchase(
  ctx: ServiceContext,
  input: { productId: unknown; label: unknown } & Partial<Record<PoolUnit, unknown>>,
): Promise<Quote> {
  const { productId, monthlyUsdCents: monthly } = await quotePool(ctx.db, input);
  return {
    message: `Buy capacity pool "${String(input.label).trim()}" (${productId}) for ${perMonth(monthly)}, ${formatUsd(monthly)} charged now; ${await walletMove(ctx.db, -monthly)}.`,
    terms: { productId, chargeNowUsdCents: monthly, monthlyUsdCents: monthly },
  };
}

/** The price of a resize (MCP asks a person with it): resizePlan's, what resizePool charges. */
export async function quotePoolResizeCharge(
  ctx: ServiceContext,
  id: string,
  input: Partial<Record<PoolUnit, unknown>>,
): Promise<Quote> {
  const q = await quotePoolResize(ctx, id, input);
  const now = q.chargeNowUsdCents;
  return {
    message: `Resize capacity pool ${id} to ${POOL_UNITS.map((u) => `${q[u]} ${u}`).join(', ')}: ${formatUsd(now)} charged now (growth, prorated for ${q.daysLeft} of ${q.cycleDays} days), then ${perMonth(q.monthlyUsdCents)} (now ${perMonth(q.currentMonthlyUsdCents)}); ${await walletMove(ctx.db, -now)}.`,
    terms: { chargeNowUsdCents: now, monthlyUsdCents: q.monthlyUsdCents },
  };
}

/** What a resize would cost, at the rates the pool was sold at. Nothing is charged. */
export async function quotePoolResize(ctx: ServiceContext, id: string, input: Partial<Record<PoolUnit, unknown>>) {
  const now = ctx.app.clock.now();
  const pool = await findPool(ctx.db, id);
  const plan = await resizePlan(ctx.db, pool, input, now);
  return {
    poolId: id,
    ...plan.units,
    currentMonthlyUsdCents: plan.current,
    monthlyUsdCents: plan.next,
    differenceUsdCents: plan.next - plan.current,
    chargeNowUsdCents: plan.chargeNow,
    daysLeft: plan.cycle.daysLeft,
    cycleDays: plan.cycle.cycleDays,
    renewsAt: pool.paidUntil,
  };
}

/**
 * Resizes to a whole shape (absolute units). Growth is charged now, prorated for the days
 * left, at the sold rates; shrinking is not refunded and lowers the price from the next
 * renewal; a shape below what the pool's servers hold is refused (409). `pool.resized` fires
 * when the shape changed; asking for the shape it has changes and fires nothing.
 */
export async function resizePool(ctx: ServiceContext, id: string, input: Partial<Record<PoolUnit, unknown>>) {
  const now = ctx.app.clock.now();
  return ctx.db.$transaction(async (tx) => {
    const pool = await lockPool(tx, id);
    const plan = await resizePlan(tx, pool, input, now);
    const delta = Object.fromEntries(POOL_UNITS.map((u) => [u, plan.units[u] - plan.from[u]])) as CapacityUnits;
    // The shape it already has: nothing to reserve, charge or announce.
    if (POOL_UNITS.every((u) => delta[u] === 0)) return detail(tx, pool);
    await ctx.app.provider.adjustPoolCapacity(tx, pool.productId, plan.product.capacity, delta).catch(refusal);
    if (plan.chargeNow > 0) {
      await debit(tx, {
        accountId: pool.accountId,
        amountUsdCents: plan.chargeNow,
        kind: 'pool_resize',
        description: `Capacity pool "${pool.label}" growth, prorated for ${plan.cycle.daysLeft} of ${plan.cycle.cycleDays} days (${formatUsd(plan.next)}/month from now)`,
        reference: id,
        now,
      });
    }
    if (delta.ip16 > 0)
      await servers.addPoolIps(
        tx,
        pool.accountId,
        id,
        await ctx.app.provider.allocatePoolBlocks(tx, delta.ip16, now),
        now,
      );
    if (delta.ip16 < 0) await servers.removeFreePoolIps(tx, ctx.app.provider, id, -delta.ip16 * UNIT_SIZES.ip16, now);
    const updated = await tx.pool.update({ where: { id }, data: { ...plan.units, monthlyUsdCents: plan.next } });
    await recordEvent(
      tx,
      pool.accountId,
      'pool.resized',
      { poolId: id, ...plan.units, monthlyUsdCents: plan.next, chargedUsdCents: plan.chargeNow },
      now,
    );
    return detail(tx, updated);
  });
}

/**
 * Deletes a pool: servers powered off and preserved, IP block returned, private network deleted,
 * no refund, then `pool.deleted` (the block goes with the pool: no `pool.ips.changed`).
 */
export async function deletePool(ctx: ServiceContext, id: string) {
  const now = ctx.app.clock.now();
  return ctx.db.$transaction(async (tx) => {
    const pool = await lockPool(tx, id);
    const product = await requireProduct(tx, pool.productId, false);
    await servers.releasePool(tx, ctx.app.provider, id, now);
    const units = unitsOf(pool);
    await ctx.app.provider.adjustPoolCapacity(
      tx,
      pool.productId,
      product.capacity,
      Object.fromEntries(POOL_UNITS.map((u) => [u, -units[u]])) as CapacityUnits,
    );
    const deleted = await tx.pool.update({ where: { id }, data: { status: 'deleted', deletedAt: now } });
    await recordEvent(tx, pool.accountId, 'pool.deleted', { poolId: id }, now);
    return summary(deleted);
  });
}
