import { createHash, randomBytes, randomInt } from 'node:crypto';
import type { PrismaClient } from '../../generated/prisma/client.ts';
import type { TenantDb } from '../../db/tenant.ts';
import { ID_PREFIX, newId } from '../../db/ids.ts';
import { isUniqueViolation, TX_OPTIONS } from '../../db/tx.ts';
import { badRequest, conflict, notFound } from '../../errors.ts';
import { recordEvent } from '../../events/outbox.ts';
import { ProviderRefusal, type AddonSpec, type PowerAction, type ServerProvider, type Tx, type UpstreamIp } from '../../provider/types.ts';
import { paginate, type PageArgs } from '../../schema/pagination.ts';
import { addMonths, cycleOf, prorate } from '../billing/proration.ts';
import { debit } from '../billing/wallet.ts';
import { getAddonProduct, getServerPlan, listAddonProducts, resolveOsTemplate, resolveServerOrder, switchablePlans, type AddonProduct } from '../catalogue/service.ts';
import { isPoolActive } from '../pools/service.ts';

/** What a service call needs from the request: the tenant-scoped db plus the instance's parts. */
export interface ServiceContext {
  db: TenantDb;
  /** The caller; services read the account id from here, never from the account table. */
  principal: { accountId: string } | null;
  app: { provider: ServerProvider; clock: { now(): Date }; config: { publicBaseUrl: string } };
}

/** Terminated servers are gone for the customer: lists and lookups never show them. */
const VISIBLE = { status: { not: 'terminated' } };

export function listServers(db: TenantDb, args: PageArgs, query: object = {}) {
  return paginate(args, (page) => db.server.findMany({ ...query, ...page, where: { ...page.where, ...VISIBLE } }));
}

export async function getServer(db: TenantDb | Tx, id: string, query: object = {}) {
  const server = await db.server.findFirst({ ...query, where: { id, ...VISIBLE } });
  if (!server) throw notFound('Server');
  return server;
}

/** States in which the customer can act on a server. */
function requireOperable(server: { status: string }, what: string) {
  if (server.status === 'provisioning') throw conflict(`The server is still provisioning; ${what} is possible once it is running.`);
  if (server.status === 'suspended') throw conflict(`The server is suspended; ${what} is not possible until it is reactivated.`);
  if (server.status === 'rebooting') throw conflict(`The server is rebooting; retry ${what} in a minute.`);
  if (server.status === 'restoring') throw conflict(`The server is being restored from a snapshot; retry ${what} in a minute.`);
  if (server.status === 'reinstalling') throw conflict(`The server is being reinstalled; retry ${what} once it is running.`);
}

/** Locks the server row for the rest of the transaction: concurrent writes on one server queue here. */
async function lockServer(tx: Tx, id: string): Promise<void> {
  await tx.$queryRaw`SELECT "id" FROM "Server" WHERE "id" = ${id} FOR UPDATE`;
}

/**
 * Power actions. start on a running server and stop on a stopped one are no-ops that
 * answer 200 with the unchanged server and fire no event (nothing ran); reboot needs a
 * running server. The event fires when the action runs.
 */
export async function powerServer(ctx: ServiceContext, id: string, action: PowerAction, query: object = {}) {
  const now = ctx.app.clock.now();
  return ctx.db.$transaction(async (tx) => {
    await lockServer(tx, id);
    const server = await getServer(tx, id);
    requireOperable(server, `a ${action}`);
    const target = action === 'stop' ? 'stopped' : action === 'start' ? 'running' : 'rebooting';
    if (action !== 'reboot' && server.status === target) return getServer(tx, id, query);
    if (action === 'reboot' && server.status !== 'running') throw conflict('Only a running server can be rebooted; start it instead.');
    if (action === 'start' && server.poolId && !(await isPoolActive(tx, server.poolId))) {
      throw conflict('This server was preserved when its capacity pool was deleted and cannot be started; snapshot or terminate it.');
    }
    await ctx.app.provider.power(tx, id, action, now);
    await tx.server.update({ where: { id }, data: { status: target } });
    await recordEvent(tx, server.accountId, 'server.power.changed', { serverId: id, action }, now);
    return getServer(tx, id, query);
  });
}

export async function listSnapshots(db: TenantDb, serverId: string, query: object = {}) {
  await getServer(db, serverId);
  return db.snapshot.findMany({ ...query, where: { serverId }, orderBy: { id: 'desc' } });
}

export const SNAPSHOTS_PER_SERVER = 10;

export async function createSnapshot(ctx: ServiceContext, serverId: string, input: { name: string; description?: string | null }, query: object = {}) {
  const name = input.name.trim();
  if (name.length < 1 || name.length > 64) throw badRequest('name must be 1 to 64 characters.', 'name');
  const description = input.description ?? '';
  if (description.length > 500) throw badRequest('description must be at most 500 characters.', 'description');
  const now = ctx.app.clock.now();
  return ctx.db.$transaction(async (tx) => {
    const server = await getServer(tx, serverId);
    requireOperable(server, 'a snapshot');
    if ((await tx.snapshot.count({ where: { serverId } })) >= SNAPSHOTS_PER_SERVER) {
      throw badRequest(`A server keeps at most ${SNAPSHOTS_PER_SERVER} snapshots; delete one first.`);
    }
    const id = newId(ID_PREFIX.snapshot, now.getTime());
    const { sizeGb } = await ctx.app.provider.snapshot(tx, serverId, id, now);
    return tx.snapshot.create({ ...query, data: { id, accountId: server.accountId, serverId, name, description, status: 'available', sizeGb, createdAt: now } });
  }, TX_OPTIONS);
}

export interface ServerOrder {
  productId?: unknown;
  label?: unknown;
  os?: unknown;
  osTemplate?: unknown;
}

type Plan = { id: string; vcpu: number; ramMb: number; diskGb: number };
type Template = { id: string; os: string };

/** The row of a server being ordered (standalone or in a pool): provisioning, sized by its plan. */
function newServerRow(o: { accountId: string; label: string; product: Plan; template: Template; now: Date }) {
  return {
    id: newId(ID_PREFIX.server, o.now.getTime()),
    accountId: o.accountId,
    label: o.label,
    status: 'provisioning',
    productId: o.product.id,
    vcpu: o.product.vcpu,
    ramMb: o.product.ramMb,
    diskGb: o.product.diskGb,
    os: o.template.os,
    osTemplate: o.template.id,
    createdAt: o.now,
  };
}

/** What the upstream is asked to build for that row. */
function provisionRequest(serverId: string, product: Plan, template: Template) {
  return { serverId, productId: product.id, vcpu: product.vcpu, ramMb: product.ramMb, diskGb: product.diskGb, os: template.os, osTemplate: template.id };
}

/** An order from the operator API: the server row now, the upstream build later (server.created). */
export async function orderServer(
  prisma: PrismaClient,
  provider: ServerProvider,
  accountId: string,
  order: ServerOrder,
  now: Date,
  /** Runs in the order's transaction (the operator's `"charge": true` bills the first month here). */
  onOrdered?: (tx: Tx, server: { id: string; label: string; productId: string }, monthlyUsdCents: number) => Promise<unknown>,
) {
  const label = typeof order.label === 'string' ? order.label.trim() : '';
  if (label.length < 1 || label.length > 64) throw badRequest('label must be 1 to 64 characters.', 'label');
  const { product, template } = await resolveServerOrder(prisma, { productId: order.productId, os: order.os, osTemplate: order.osTemplate });
  return prisma.$transaction(async (tx) => {
    const server = await tx.server.create({ data: newServerRow({ accountId, label, product, template, now }) });
    await provider.provisionServer(tx, provisionRequest(server.id, product, template), now);
    await onOrdered?.(tx, server, product.monthlyUsdCents);
    return server;
  }, TX_OPTIONS);
}


/** Status a server returns to after a transient state (the one it had before). */
type Resting = 'running' | 'stopped';
function resting(status: string): Resting {
  return status === 'stopped' ? 'stopped' : 'running';
}

function refusal(err: unknown): never {
  if (err instanceof ProviderRefusal) throw badRequest(err.message);
  throw err;
}

// ---------------------------------------------------------------- termination

/**
 * Permanent termination: the disk and snapshots are destroyed, add-ons end (no refund),
 * the server's own addresses go back to the datacenter and pool addresses back to the
 * pool's block, then `server.terminated`. The server disappears from lists and lookups.
 */
export async function terminateServer(ctx: ServiceContext, id: string) {
  const now = ctx.app.clock.now();
  return ctx.db.$transaction(async (tx) => {
    await lockServer(tx, id);
    const server = await getServer(tx, id);
    await endAddons(tx, ctx.app.provider, id, now);
    const own = await tx.serverIp.findMany({ where: { serverId: id, poolId: null }, select: { address: true } });
    await tx.serverIp.deleteMany({ where: { serverId: id, poolId: null } });
    await ctx.app.provider.releaseAddresses(tx, own.map((ip) => ip.address), now);
    await tx.serverIp.updateMany({ where: { serverId: id, poolId: { not: null } }, data: { serverId: null, isPrimary: false } });
    await tx.snapshot.deleteMany({ where: { serverId: id } });
    await ctx.app.provider.terminate(tx, id, now);
    await tx.server.update({ where: { id }, data: { status: 'terminated', terminatedAt: now } });
    await recordEvent(tx, server.accountId, 'server.terminated', { serverId: id }, now);
    return { id, status: 'terminated', terminatedAt: now };
  }, TX_OPTIONS);
}

// ---------------------------------------------------------------- stats

export async function serverStats(ctx: ServiceContext, id: string) {
  const server = await getServer(ctx.db, id);
  const stats = await ctx.app.provider.stats(ctx.db, id, ctx.app.clock.now());
  return { serverId: id, status: server.status, ...stats };
}

// ---------------------------------------------------------------- snapshots

export async function deleteSnapshot(ctx: ServiceContext, serverId: string, snapshotId: string) {
  const now = ctx.app.clock.now();
  return ctx.db.$transaction(async (tx) => {
    await getServer(tx, serverId);
    const snap = await tx.snapshot.findFirst({ where: { id: snapshotId, serverId } });
    if (!snap) throw notFound('Snapshot');
    await ctx.app.provider.deleteSnapshot(tx, serverId, snapshotId, now);
    await tx.snapshot.delete({ where: { id: snapshotId } });
    return { id: snapshotId, deleted: true };
  }, TX_OPTIONS);
}

/** Rolls the live disk back: the server is `restoring` for about a minute, then back in the state it had. */
export async function revertSnapshot(ctx: ServiceContext, serverId: string, snapshotId: string, query: object = {}) {
  const now = ctx.app.clock.now();
  return ctx.db.$transaction(async (tx) => {
    await lockServer(tx, serverId);
    const server = await getServer(tx, serverId);
    const snap = await tx.snapshot.findFirst({ where: { id: snapshotId, serverId } });
    if (!snap) throw notFound('Snapshot');
    requireOperable(server, 'a revert');
    if (snap.status !== 'available') throw conflict('The snapshot is not available yet.');
    await ctx.app.provider.revertSnapshot(tx, serverId, snapshotId, resting(server.status), now);
    await tx.server.update({ where: { id: serverId }, data: { status: 'restoring' } });
    return getServer(tx, serverId, query);
  }, TX_OPTIONS);
}

// ---------------------------------------------------------------- reinstall

/**
 * Wipes the disk and rebuilds from a template. The server is `reinstalling` until the
 * rebuild finishes (about 90 s simulated), then `running` and `server.reinstalled` fires.
 */
export async function reinstallServer(ctx: ServiceContext, id: string, input: { osTemplate: string; os?: string | null }, query: object = {}) {
  const now = ctx.app.clock.now();
  const template = await resolveOsTemplate(ctx.db, input);
  return ctx.db.$transaction(async (tx) => {
    await lockServer(tx, id);
    const server = await getServer(tx, id);
    requireOperable(server, 'a reinstall');
    if (server.poolId && template.os !== 'linux') throw badRequest('Servers inside a capacity pool run Linux only.', 'osTemplate');
    await ctx.app.provider.reinstall(tx, id, { os: template.os, osTemplate: template.id }, now);
    await tx.server.update({ where: { id }, data: { status: 'reinstalling', os: template.os, osTemplate: template.id } });
    return getServer(tx, id, query);
  }, TX_OPTIONS);
}

// ---------------------------------------------------------------- IPs and reverse DNS

export async function listServerIps(db: TenantDb, serverId: string, query: object = {}) {
  await getServer(db, serverId);
  return db.serverIp.findMany({ ...query, where: { serverId }, orderBy: [{ isPrimary: 'desc' }, { address: 'asc' }] });
}

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** A PTR target: a fully qualified DNS name (trailing dot optional), lowercased. */
export function normalizeHostname(input: string): string {
  const name = input.trim().toLowerCase().replace(/\.$/, '');
  const labels = name.split('.');
  const ok = name.length >= 1 && name.length <= 253 && labels.length >= 2 && labels.every((l) => LABEL.test(l)) && !/^\d+$/.test(labels[labels.length - 1]);
  if (!ok) throw badRequest('hostname must be a fully qualified DNS name such as "mail.example.com" (labels of letters, digits and hyphens, at most 253 characters).', 'hostname');
  return name;
}

/**
 * Sets (hostname) or clears (null) the PTR of one of the server's addresses. Idempotent:
 * writing the value already there answers 200 and fires nothing; a change fires
 * `server.ptr.changed` (ptr null when cleared).
 */
export async function setPtr(ctx: ServiceContext, serverId: string, address: string, hostname: string | null, query: object = {}) {
  const ptr = hostname === null ? null : normalizeHostname(hostname);
  const now = ctx.app.clock.now();
  return ctx.db.$transaction(async (tx) => {
    const server = await getServer(tx, serverId);
    const ip = await tx.serverIp.findFirst({ where: { serverId, address } });
    if (!ip) throw notFound('IP address');
    if (!ip.zoneHosted) {
      throw badRequest(`The reverse zone of ${address} is not hosted by the service (zoneHosted: false), so its PTR cannot be managed here; ask the holder of that zone.`, 'ip');
    }
    if (ip.ptr === ptr) return tx.serverIp.findUniqueOrThrow({ ...query, where: { id: ip.id } });
    await ctx.app.provider.setPtr(tx, address, ptr, now).catch(refusal);
    const updated = await tx.serverIp.update({ ...query, where: { id: ip.id }, data: { ptr } });
    await recordEvent(tx, server.accountId, 'server.ptr.changed', { serverId, ip: address, ptr }, now);
    return updated;
  }, TX_OPTIONS);
}

// ---------------------------------------------------------------- plans

async function currentPlan(db: Pick<Tx, 'product' | 'osTemplate'>, server: { productId: string; poolId: string | null }) {
  if (server.poolId) throw conflict('A server inside a capacity pool has no plan of its own; its resources come from the pool.');
  const plan = await getServerPlan(db, server.productId);
  if (!plan) throw conflict('The plan of this server is no longer in the catalogue.');
  return plan;
}

/** The current plan and the plans a server can switch to in place (same family, same disk), cheapest first. */
export async function planOptions(db: TenantDb, serverId: string) {
  const server = await getServer(db, serverId);
  const plan = await currentPlan(db, server);
  const plans = await switchablePlans(db, plan);
  return plans.map((p) => ({ productId: p.id, name: p.name, family: p.family, vcpu: p.vcpu, ramMb: p.ramMb, diskGb: p.diskGb, monthlyUsdCents: p.monthlyUsdCents, current: p.id === server.productId }));
}

/**
 * In-place vCPU/RAM change to one of the plan options. The disk is unchanged; a running
 * server reboots (about a minute); no money moves now (no proration on an up-switch, no
 * credit on a down-switch): the next renewal bills the new plan. Fires `server.resized`.
 */
export async function changePlan(ctx: ServiceContext, serverId: string, productId: string, query: object = {}) {
  const now = ctx.app.clock.now();
  return ctx.db.$transaction(async (tx) => {
    await lockServer(tx, serverId);
    const server = await getServer(tx, serverId);
    const plan = await currentPlan(tx, server);
    requireOperable(server, 'a plan change');
    if (productId === server.productId) throw badRequest(`The server is already on ${productId}.`, 'productId');
    const target = (await switchablePlans(tx, plan)).find((p) => p.id === productId && p.active);
    if (!target) throw badRequest(`productId "${productId}" is not one of this server's plan options (same family, same disk size); see GET /servers/${serverId}/plan-options.`, 'productId');
    const running = server.status === 'running';
    await ctx.app.provider.resize(tx, serverId, { productId: target.id, vcpu: target.vcpu, ramMb: target.ramMb }, running, now);
    await tx.server.update({ where: { id: serverId }, data: { productId: target.id, vcpu: target.vcpu, ramMb: target.ramMb, ...(running ? { status: 'rebooting' } : {}) } });
    await recordEvent(tx, server.accountId, 'server.resized', { serverId, productId: target.id, vcpu: target.vcpu, ramMb: target.ramMb }, now);
    return getServer(tx, serverId, query);
  }, TX_OPTIONS);
}

// ---------------------------------------------------------------- dashboard SSO

/** Lifetime of a dashboard login link, on the simulated clock. */
export const SSO_TTL_SECONDS = 300;

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

/** A relative dashboard path: one leading slash, no scheme, no host, no backslash, no control characters. */
export function checkNextPath(next: string): string {
  const ok =
    next.length <= 512 &&
    next.startsWith('/') &&
    !next.startsWith('//') &&
    !/[\\\s\x00-\x1f\x7f]/.test(next) &&
    !/^\/[^/?#]*:/.test(next) &&
    !next.split(/[?#]/)[0].split('/').some((seg) => seg === '..' || decodeSafe(seg).includes('/') || decodeSafe(seg).includes('\\'));
  if (!ok) throw badRequest('next must be a relative dashboard path starting with a single "/" (no scheme, host or "..").', 'next');
  return next;
}

function decodeSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return '\\';
  }
}

/**
 * A short-lived, single-use URL that signs into the dashboard on this server's page (or on
 * `next`). Only the token's SHA-256 is stored; the URL is shown once.
 */
export async function createSsoLink(ctx: ServiceContext, serverId: string, next: string | null | undefined) {
  const server = await getServer(ctx.db, serverId);
  const target = next === undefined || next === null ? `/servers/${serverId}` : checkNextPath(next);
  const now = ctx.app.clock.now();
  const token = `sso_${randomBytes(32).toString('base64url')}`;
  const expiresAt = new Date(now.getTime() + SSO_TTL_SECONDS * 1000);
  await ctx.db.ssoToken.create({
    data: { id: newId(ID_PREFIX.ssoToken, now.getTime()), accountId: server.accountId, serverId, tokenHash: hashToken(token), next: target, expiresAt, createdAt: now },
  });
  return { url: `${ctx.app.config.publicBaseUrl}/sso/${token}?next=${encodeURIComponent(target)}`, expiresAt };
}

/**
 * Redeems a dashboard login token (for the dashboard's /sso/:token landing): valid once,
 * before its expiry. The conditional UPDATE makes two concurrent redemptions yield one success.
 * Returns null for an unknown, used or expired token.
 */
export async function consumeSsoToken(prisma: PrismaClient, token: string, now: Date): Promise<{ accountId: string; serverId: string; next: string } | null> {
  const tokenHash = hashToken(token);
  const { count } = await prisma.ssoToken.updateMany({ where: { tokenHash, usedAt: null, expiresAt: { gt: now } }, data: { usedAt: now } });
  if (count !== 1) return null;
  const row = await prisma.ssoToken.findUniqueOrThrow({ where: { tokenHash } });
  return { accountId: row.accountId, serverId: row.serverId, next: row.next };
}

// ---------------------------------------------------------------- add-ons

const STOCK_NOTE = 'Temporarily out of stock: the datacenter is waiting for new address space. Check back in a few days.';

function addonSpec(p: AddonProduct): AddonSpec {
  return { type: p.type, ips: p.ips, distinctSubnets: p.distinctSubnets, ...(p.stock !== null ? { stockKey: `addon:${p.type}`, initialStock: p.stock } : {}) };
}

/** The server's billing cycle: from its renewal date (a server not yet provisioned would start a cycle now). */
function serverCycle(server: { paidUntil: Date | null }, now: Date) {
  return cycleOf(server.paidUntil ?? addMonths(now, 1), now);
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
      monthly_usd_cents: p.monthlyUsdCents,
      prorated_usd_cents: prorate(p.monthlyUsdCents, cycle),
      owned_by_type: active.some((a) => a.type === p.type),
      available,
      stock_note: available ? null : STOCK_NOTE,
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
  const product = (await listAddonProducts(ctx.db)).find((p) => p.id === addonId);
  if (!product) throw badRequest(`addonId "${addonId}" is not an add-on in the catalogue; see GET /servers/${serverId}/addons.`, 'addonId');
  try {
    return await ctx.db.$transaction(async (tx) => {
      await lockServer(tx, serverId);
      const server = await getServer(tx, serverId);
      if (server.poolId) throw badRequest('Servers inside a capacity pool take addresses from the pool; add-ons are not offered.', 'addonId');
      requireOperable(server, 'an add-on attach');
      const owned = await tx.serverAddon.findFirst({ where: { serverId, activeType: product.type } });
      if (owned) throw badRequest(`An add-on of type ${product.type} (${owned.productId}) is already active on this server; detach it first to change tier.`, 'addonId');
      const charge = prorate(product.monthlyUsdCents, serverCycle(server, now));
      const id = newId(ID_PREFIX.serverAddon, now.getTime());
      // The row first: the unique index refuses a second active add-on of this type.
      await tx.serverAddon.create({
        data: { id, accountId: server.accountId, serverId, productId: product.id, type: product.type, activeType: product.type, monthlyUsdCents: product.monthlyUsdCents, chargedUsdCents: charge, createdAt: now },
      });
      const stock = await ctx.app.provider.addonStock(tx, addonSpec(product));
      if (stock !== null && stock < 1) throw badRequest(`${product.name} is out of stock. ${STOCK_NOTE}`, 'addonId');
      const txn = charge > 0
        ? await debit(tx, { accountId: server.accountId, amountUsdCents: charge, kind: 'addon_purchase', description: `${product.name} on ${server.label}, prorated to the end of the cycle`, reference: serverId, now })
        : null;
      const { ips } = await ctx.app.provider.attachAddon(tx, serverId, addonSpec(product), now).catch(refusal);
      if (ips.length) {
        await tx.serverIp.createMany({
          data: ips.map((ip) => ({ id: newId(ID_PREFIX.serverIp, now.getTime()), accountId: server.accountId, serverId, addonId: id, address: ip.address, version: ip.version, zoneHosted: ip.zoneHosted, createdAt: now })),
        });
      }
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
    }, TX_OPTIONS);
  } catch (err) {
    if (isUniqueViolation(err)) throw badRequest(`An add-on of type ${product.type} is already active on this server; detach it first to change tier.`, 'addonId');
    throw err;
  }
}

/** Detaches an add-on: no refund, the price drops from the next renewal, its addresses stop routing at once. */
export async function detachAddon(ctx: ServiceContext, serverId: string, addonId: string) {
  const now = ctx.app.clock.now();
  return ctx.db.$transaction(async (tx) => {
    await lockServer(tx, serverId);
    await getServer(tx, serverId);
    const row = await tx.serverAddon.findFirst({ where: { serverId, productId: addonId, activeType: { not: null } } });
    if (!row) throw notFound('Active add-on');
    const released = await endAddon(tx, ctx.app.provider, row, now);
    return { id: addonId, serverId, detached: true, releasedIps: released };
  }, TX_OPTIONS);
}

async function endAddon(tx: Tx, provider: ServerProvider, row: { id: string; serverId: string; productId: string; type: string }, now: Date): Promise<string[]> {
  const product = await getAddonProduct(tx, row.productId);
  const ips = await tx.serverIp.findMany({ where: { addonId: row.id }, select: { address: true }, orderBy: { address: 'asc' } });
  const addresses = ips.map((ip) => ip.address);
  await tx.serverIp.deleteMany({ where: { addonId: row.id } });
  await provider.detachAddon(tx, row.serverId, product ? addonSpec(product) : { type: row.type, ips: addresses.length }, addresses, now);
  await tx.serverAddon.update({ where: { id: row.id }, data: { activeType: null, endedAt: now } });
  return addresses;
}

async function endAddons(tx: Tx, provider: ServerProvider, serverId: string, now: Date): Promise<void> {
  for (const row of await tx.serverAddon.findMany({ where: { serverId, activeType: { not: null } } })) await endAddon(tx, provider, row, now);
}

// ---------------------------------------------------------------- root password

const PASSWORD_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';

/** Sets a new random root password through the guest agent and returns it once (it is stored nowhere). */
export async function resetRootPassword(ctx: ServiceContext, serverId: string) {
  const now = ctx.app.clock.now();
  return ctx.db.$transaction(async (tx) => {
    await lockServer(tx, serverId);
    const server = await getServer(tx, serverId);
    requireOperable(server, 'a password reset');
    if (server.status !== 'running') throw conflict('The guest agent sets the password: start the server first.');
    let password = '';
    for (let i = 0; i < 24; i++) password += PASSWORD_ALPHABET[randomInt(PASSWORD_ALPHABET.length)];
    await ctx.app.provider.resetPassword(tx, serverId, password, now);
    return { serverId, rootPassword: password, username: server.os === 'windows' ? 'Administrator' : 'root' };
  }, TX_OPTIONS);
}

// ---------------------------------------------------------------- operator actions

/** Operator suspension (for example expiry): powered off, `suspended` with the reason, `server.suspended`. Repeating it changes nothing. */
export async function suspendServer(prisma: PrismaClient, provider: ServerProvider, serverId: string, reason: unknown, now: Date) {
  if (typeof reason !== 'string' || reason.trim().length < 1 || reason.length > 500) throw badRequest('reason must be 1 to 500 characters.', 'reason');
  return prisma.$transaction(async (tx) => {
    const server = await suspendServerTx(tx, provider, serverId, reason.trim(), now);
    if (!server) throw notFound('Server');
    return server;
  }, TX_OPTIONS);
}

/** Suspension in the caller's transaction (operator, billing); null when the server does not exist. */
export async function suspendServerTx(tx: Tx, provider: ServerProvider, serverId: string, reason: string, now: Date) {
  await lockServer(tx, serverId);
  const server = await tx.server.findFirst({ where: { id: serverId, ...VISIBLE } });
  if (!server) return null;
  if (server.status === 'suspended') return server;
  await provider.suspend(tx, serverId, reason, now);
  const updated = await tx.server.update({ where: { id: serverId }, data: { status: 'suspended', suspendReason: reason } });
  await recordEvent(tx, server.accountId, 'server.suspended', { serverId, reason }, now);
  return updated;
}

/** Lifts a suspension (its cause was settled, e.g. the overdue invoice was paid): the server is stopped; the customer starts it. */
export async function reactivateServer(tx: Tx, serverId: string): Promise<void> {
  await tx.server.updateMany({ where: { id: serverId, status: 'suspended' }, data: { status: 'stopped', suspendReason: null } });
}

// ---------------------------------------------------------------- renewals (called by the billing renewal job)

export interface DueRenewal {
  accountId: string;
  resourceId: string;
  periodStart: Date;
  periodEnd: Date;
  items: { description: string; amountUsdCents: number }[];
}

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
    const addons = await Promise.all(server.addons.map(async (a) => ({ row: a, product: await getAddonProduct(db, a.productId) })));
    out.push({
      accountId: server.accountId,
      resourceId: server.id,
      periodStart,
      periodEnd: addMonths(periodStart, 1),
      items: [
        { description: `Server "${server.label}" (${server.productId})`, amountUsdCents: plan?.monthlyUsdCents ?? 0 },
        ...addons.map(({ row, product }) => ({ description: `${product?.name ?? row.productId} on "${server.label}"`, amountUsdCents: row.monthlyUsdCents })),
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

// ---------------------------------------------------------------- capacity pools (called by the pools service)

/** What a pool's servers hold: provisioned resources, whatever their power state. */
export async function poolUsage(tx: Tx, poolId: string) {
  const agg = await tx.server.aggregate({ where: { poolId, ...VISIBLE }, _sum: { vcpu: true, ramMb: true, diskGb: true }, _count: { _all: true } });
  const ips = await tx.serverIp.count({ where: { poolId, serverId: { not: null } } });
  return { vcpu: agg._sum.vcpu ?? 0, ramMb: agg._sum.ramMb ?? 0, diskGb: agg._sum.diskGb ?? 0, ips, servers: agg._count._all };
}

export async function poolServers(tx: Tx, poolId: string) {
  return tx.server.findMany({ where: { poolId, ...VISIBLE }, orderBy: { id: 'asc' }, include: { ips: { select: { address: true }, orderBy: { address: 'asc' } } } });
}

export async function addPoolIps(tx: Tx, accountId: string, poolId: string, ips: UpstreamIp[], now: Date): Promise<void> {
  await tx.serverIp.createMany({
    data: ips.map((ip) => ({ id: newId(ID_PREFIX.serverIp, now.getTime()), accountId, poolId, serverId: null, address: ip.address, version: ip.version, zoneHosted: ip.zoneHosted, createdAt: now })),
  });
}

export async function listPoolIps(tx: Tx, poolId: string) {
  const rows = await tx.serverIp.findMany({ where: { poolId }, orderBy: { address: 'asc' } });
  rows.sort((a, b) => ipNum(a.address) - ipNum(b.address));
  return rows.map((r) => ({ ip: r.address, version: r.version, ptr: r.ptr, zoneHosted: r.zoneHosted, assignedTo: r.serverId }));
}

function ipNum(address: string): number {
  return address.split('.').reduce((n, o) => n * 256 + Number(o), 0);
}

/** Gives `count` free addresses of the pool back to the datacenter, highest first; returns them. */
export async function removeFreePoolIps(tx: Tx, provider: ServerProvider, poolId: string, count: number, now: Date): Promise<string[]> {
  if (count <= 0) return [];
  const free = (await tx.serverIp.findMany({ where: { poolId, serverId: null }, select: { id: true, address: true } })).sort((a, b) => ipNum(b.address) - ipNum(a.address)).slice(0, count);
  await tx.serverIp.deleteMany({ where: { id: { in: free.map((f) => f.id) } } });
  await provider.releaseAddresses(tx, free.map((f) => f.address), now);
  return free.map((f) => f.address);
}

/** A server inside a pool: free, provisioning asynchronously like any other, taking `addresses` from the block. */
export async function createPoolServer(
  tx: Tx,
  provider: ServerProvider,
  input: { accountId: string; poolId: string; label: string; productId: unknown; os: unknown; osTemplate: unknown; addresses: string[] },
  now: Date,
) {
  const { product, template } = await resolveServerOrder(tx, { productId: input.productId, os: input.os, osTemplate: input.osTemplate });
  if (template.os !== 'linux') throw badRequest('Servers inside a capacity pool run Linux only.', 'osTemplate');
  const server = await tx.server.create({ data: { ...newServerRow({ accountId: input.accountId, label: input.label, product, template, now }), poolId: input.poolId } });
  for (const [i, address] of input.addresses.entries()) {
    await tx.serverIp.updateMany({ where: { poolId: input.poolId, address, serverId: null }, data: { serverId: server.id, isPrimary: i === 0 } });
  }
  await provider.provisionServer(tx, { ...provisionRequest(server.id, product, template), poolAddresses: input.addresses }, now);
  return { server, product };
}

/** Moves pool addresses between the pool's servers (or back to the block); routing follows at once. */
export async function routePoolIps(tx: Tx, provider: ServerProvider, poolId: string, changes: { ip: string; serverId: string | null }[], now: Date): Promise<void> {
  const touched = new Set<string>();
  for (const c of changes) {
    const row = await tx.serverIp.findFirstOrThrow({ where: { poolId, address: c.ip } });
    if (row.serverId === c.serverId) continue;
    if (row.serverId) touched.add(row.serverId);
    if (c.serverId) touched.add(c.serverId);
    await tx.serverIp.update({ where: { id: row.id }, data: { serverId: c.serverId, isPrimary: false } });
  }
  await provider.routeIps(tx, changes.map((c) => ({ address: c.ip, serverId: c.serverId })), now);
  // Each touched server's lowest address is its primary.
  for (const serverId of touched) {
    const ips = (await tx.serverIp.findMany({ where: { serverId }, select: { id: true, address: true, isPrimary: true } })).sort((a, b) => ipNum(a.address) - ipNum(b.address));
    if (!ips.length || ips.some((ip) => ip.isPrimary)) continue;
    await tx.serverIp.update({ where: { id: ips[0].id }, data: { isPrimary: true } });
  }
}

/** Pool deletion: every server is powered off and preserved, the block's addresses go back to the datacenter. */
export async function releasePool(tx: Tx, provider: ServerProvider, poolId: string, now: Date): Promise<void> {
  for (const server of await tx.server.findMany({ where: { poolId, ...VISIBLE } })) {
    if (server.status === 'running' || server.status === 'rebooting' || server.status === 'restoring' || server.status === 'reinstalling') {
      await provider.power(tx, server.id, 'stop', now);
      await tx.server.update({ where: { id: server.id }, data: { status: 'stopped' } });
    } else if (server.status === 'provisioning') {
      await tx.server.update({ where: { id: server.id }, data: { status: 'stopped', provisionedAt: now } });
    }
  }
  const ips = await tx.serverIp.findMany({ where: { poolId }, select: { address: true } });
  await tx.serverIp.deleteMany({ where: { poolId } });
  await provider.releaseAddresses(tx, ips.map((ip) => ip.address), now);
}

// ---------------------------------------------------------------- provider callbacks

const TRANSIENT = ['rebooting', 'restoring'];

/** Provider callbacks: asynchronous upstream work finishing. */
export const providerCallbacks = {
  /** The build finished: addresses recorded, server running, `server.created`. A server terminated meanwhile stays so. */
  async serverProvisioned(tx: Tx, serverId: string, result: { ips: UpstreamIp[] }, now: Date): Promise<void> {
    const current = await tx.server.findUniqueOrThrow({ where: { id: serverId } });
    if (current.status !== 'provisioning') return;
    const server = await tx.server.update({
      where: { id: serverId },
      // Pool servers are free: they renew with their pool, so they have no paid-up period of their own.
      data: { status: 'running', provisionedAt: now, paidUntil: current.poolId ? null : addMonths(now, 1) },
    });
    if (result.ips.length) {
      await tx.serverIp.createMany({
        data: result.ips.map((ip, i) => ({
          id: newId(ID_PREFIX.serverIp, now.getTime()),
          accountId: server.accountId,
          serverId,
          address: ip.address,
          version: ip.version,
          zoneHosted: ip.zoneHosted,
          isPrimary: i === 0,
        })),
      });
    }
    await recordEvent(tx, server.accountId, 'server.created', { serverId, status: server.status, label: server.label }, now);
  },

  /** A reboot or restore finished. Only moves a server still in a transient state (a suspension meanwhile wins). */
  async serverSettled(tx: Tx, serverId: string, status: 'running' | 'stopped', _now: Date): Promise<void> {
    await tx.server.updateMany({ where: { id: serverId, status: { in: TRANSIENT } }, data: { status } });
  },

  /** A rebuild finished: the server runs the new template, `server.reinstalled`. */
  async serverReinstalled(tx: Tx, serverId: string, now: Date): Promise<void> {
    const { count } = await tx.server.updateMany({ where: { id: serverId, status: 'reinstalling' }, data: { status: 'running' } });
    if (!count) return;
    const server = await tx.server.findUniqueOrThrow({ where: { id: serverId } });
    await recordEvent(tx, server.accountId, 'server.reinstalled', { serverId, os: server.os, osTemplate: server.osTemplate }, now);
  },
};
