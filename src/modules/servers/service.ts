import type { PrismaClient } from '../../generated/prisma/client.ts';
import type { TenantDb } from '../../db/tenant.ts';
import { ID_PREFIX, newId } from '../../db/ids.ts';
import { badRequest, conflict, notFound } from '../../errors.ts';
import { recordEvent } from '../../events/outbox.ts';
import type { PowerAction, ServerProvider, Tx, UpstreamIp } from '../../provider/types.ts';
import { paginate, type PageArgs } from '../../schema/pagination.ts';
import { resolveServerOrder } from '../catalogue/service.ts';

/** What a service call needs from the request: the tenant-scoped db plus the instance's parts. */
export interface ServiceContext {
  db: TenantDb;
  app: { provider: ServerProvider; clock: { now(): Date } };
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
}

/**
 * Power actions. start on a running server and stop on a stopped one are no-ops that
 * answer 200 with the unchanged server and fire no event (nothing ran); reboot needs a
 * running server. The event fires when the action runs.
 */
export async function powerServer(ctx: ServiceContext, id: string, action: PowerAction, query: object = {}) {
  const now = ctx.app.clock.now();
  return ctx.db.$transaction(async (tx) => {
    const server = await getServer(tx, id);
    requireOperable(server, `a ${action}`);
    const target = action === 'stop' ? 'stopped' : action === 'start' ? 'running' : 'rebooting';
    if (action !== 'reboot' && server.status === target) return getServer(tx, id, query);
    if (action === 'reboot' && server.status !== 'running') throw conflict('Only a running server can be rebooted; start it instead.');
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
  });
}

export interface ServerOrder {
  productId?: unknown;
  label?: unknown;
  os?: unknown;
  osTemplate?: unknown;
}

/** An order from the operator API: the server row now, the upstream build later (server.created). */
export async function orderServer(prisma: PrismaClient, provider: ServerProvider, accountId: string, order: ServerOrder, now: Date) {
  const label = typeof order.label === 'string' ? order.label.trim() : '';
  if (label.length < 1 || label.length > 64) throw badRequest('label must be 1 to 64 characters.', 'label');
  const { product, template } = await resolveServerOrder(prisma, { productId: order.productId, os: order.os, osTemplate: order.osTemplate });
  return prisma.$transaction(async (tx) => {
    const server = await tx.server.create({
      data: {
        id: newId(ID_PREFIX.server, now.getTime()),
        accountId,
        label,
        status: 'provisioning',
        productId: product.id,
        vcpu: product.vcpu,
        ramMb: product.ramMb,
        diskGb: product.diskGb,
        os: template.os,
        osTemplate: template.id,
        createdAt: now,
      },
    });
    await provider.provisionServer(tx, { serverId: server.id, productId: product.id, vcpu: product.vcpu, ramMb: product.ramMb, diskGb: product.diskGb, os: template.os, osTemplate: template.id }, now);
    return server;
  });
}

/** Provider callbacks: asynchronous upstream work finishing. */
export const providerCallbacks = {
  /** The build finished: addresses recorded, server running, `server.created`. */
  async serverProvisioned(tx: Tx, serverId: string, result: { ips: UpstreamIp[] }, now: Date): Promise<void> {
    const server = await tx.server.update({
      where: { id: serverId },
      data: { status: 'running', provisionedAt: now, paidUntil: addMonth(now) },
    });
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
    await recordEvent(tx, server.accountId, 'server.created', { serverId, status: server.status, label: server.label }, now);
  },

  /** A reboot finished. Only moves a server still in the transient state (a suspension meanwhile wins). */
  async serverSettled(tx: Tx, serverId: string, status: 'running' | 'stopped', _now: Date): Promise<void> {
    await tx.server.updateMany({ where: { id: serverId, status: 'rebooting' }, data: { status } });
  },
};

function addMonth(date: Date): Date {
  const d = new Date(date);
  d.setUTCMonth(d.getUTCMonth() + 1);
  return d;
}
