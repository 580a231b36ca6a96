import { ID_PREFIX, newId } from '../../db/ids.ts';
import { badRequest } from '../../errors.ts';
import { announceChange } from '../../events/live-changes.ts';
import type { ServerProvider, UpstreamIp } from '../../provider/types.ts';
import type { Tx } from '../../db/tx.ts';
import { resolveServerOrder } from '../catalogue/service.ts';
import { VISIBLE } from './server-row.ts';
import { newServerRow, provisionRequest } from './service.ts';

// Servers and addresses inside a capacity pool, called by the pools service.

/** What a pool's servers hold: provisioned resources, whatever their power state. */
export async function poolUsage(tx: Tx, poolId: string) {
  const agg = await tx.server.aggregate({
    where: { poolId, ...VISIBLE },
    _sum: { vcpu: true, ramMb: true, diskGb: true },
    _count: { _all: true },
  });
  const ips = await tx.serverIp.count({ where: { poolId, serverId: { not: null } } });
  return {
    vcpu: agg._sum.vcpu ?? 0,
    ramMb: agg._sum.ramMb ?? 0,
    diskGb: agg._sum.diskGb ?? 0,
    ips,
    servers: agg._count._all,
  };
}

export async function poolServers(tx: Tx, poolId: string) {
  return tx.server.findMany({
    where: { poolId, ...VISIBLE },
    orderBy: { id: 'asc' },
    include: { ips: { select: { address: true }, orderBy: { address: 'asc' } } },
  });
}

export async function addPoolIps(
  tx: Tx,
  accountId: string,
  poolId: string,
  ips: UpstreamIp[],
  now: Date,
): Promise<void> {
  await tx.serverIp.createMany({
    data: ips.map((ip) => ({
      id: newId(ID_PREFIX.serverIp, now.getTime()),
      accountId,
      poolId,
      serverId: null,
      address: ip.address,
      version: ip.version,
      zoneHosted: ip.zoneHosted,
      createdAt: now,
    })),
  });
}

export async function listPoolIps(tx: Tx, poolId: string) {
  const rows = await tx.serverIp.findMany({ where: { poolId }, orderBy: { address: 'asc' } });
  rows.sort((a, b) => ipNum(a.address) - ipNum(b.address));
  return rows.map((r) => ({
    ip: r.address,
    version: r.version,
    ptr: r.ptr,
    zoneHosted: r.zoneHosted,
    assignedTo: r.serverId,
  }));
}

function ipNum(address: string): number {
  return address.split('.').reduce((n, o) => n * 256 + Number(o), 0);
}

/** Gives `count` free addresses of the pool back to the datacenter, highest first; returns them. */
export async function removeFreePoolIps(
  tx: Tx,
  provider: ServerProvider,
  poolId: string,
  count: number,
  now: Date,
): Promise<string[]> {
  if (count <= 0) return [];
  const free = (await tx.serverIp.findMany({ where: { poolId, serverId: null }, select: { id: true, address: true } }))
    .sort((a, b) => ipNum(b.address) - ipNum(a.address))
    .slice(0, count);
  await tx.serverIp.deleteMany({ where: { id: { in: free.map((f) => f.id) } } });
  await provider.releaseAddresses(
    tx,
    free.map((f) => f.address),
    now,
  );
  return free.map((f) => f.address);
}

/** A server inside a pool: free, provisioning asynchronously like any other, taking `addresses` from the block. */
export async function createPoolServer(
  tx: Tx,
  provider: ServerProvider,
  input: {
    accountId: string;
    poolId: string;
    label: string;
    productId: unknown;
    os: unknown;
    osTemplate: unknown;
    addresses: string[];
  },
  now: Date,
) {
  const { product, template } = await resolveServerOrder(tx, {
    productId: input.productId,
    os: input.os,
    osTemplate: input.osTemplate,
  });
  if (template.os !== 'linux') throw badRequest('Servers inside a capacity pool run Linux only.', 'osTemplate');
  const server = await tx.server.create({
    data: {
      ...newServerRow({ accountId: input.accountId, label: input.label, product, template, now }),
      poolId: input.poolId,
    },
  });
  for (const [i, address] of input.addresses.entries()) {
    await tx.serverIp.updateMany({
      where: { poolId: input.poolId, address, serverId: null },
      data: { serverId: server.id, isPrimary: i === 0 },
    });
  }
  await provider.provisionServer(
    tx,
    { ...provisionRequest(server.id, product, template), poolAddresses: input.addresses },
    now,
  );
  // A private-only server takes no address, so no pool event tells an open pool page of it.
  await announceChange(
    tx,
    input.accountId,
    'server.status.changed',
    { serverId: server.id, status: server.status },
    now,
  );
  return { server, product };
}

/**
 * Moves pool addresses between the pool's servers (or back to the block); routing follows at
 * once. Returns how many addresses got a new holder (`assigned`) and went back to the block (`freed`).
 */
export async function routePoolIps(
  tx: Tx,
  provider: ServerProvider,
  poolId: string,
  changes: { ip: string; serverId: string | null }[],
  now: Date,
): Promise<{ assigned: number; freed: number }> {
  const touched = new Set<string>();
  const moved = { assigned: 0, freed: 0 };
  for (const c of changes) {
    const row = await tx.serverIp.findFirstOrThrow({ where: { poolId, address: c.ip } });
    if (row.serverId === c.serverId) continue;
    moved[c.serverId ? 'assigned' : 'freed']++;
    if (row.serverId) touched.add(row.serverId);
    if (c.serverId) touched.add(c.serverId);
    await tx.serverIp.update({ where: { id: row.id }, data: { serverId: c.serverId, isPrimary: false } });
  }
  await provider.routeIps(
    tx,
    changes.map((c) => ({ address: c.ip, serverId: c.serverId })),
    now,
  );
  // Each touched server's lowest address is its primary.
  for (const serverId of touched) {
    const ips = (
      await tx.serverIp.findMany({ where: { serverId }, select: { id: true, address: true, isPrimary: true } })
    ).sort((a, b) => ipNum(a.address) - ipNum(b.address));
    if (!ips.length || ips.some((ip) => ip.isPrimary)) continue;
    await tx.serverIp.update({ where: { id: ips[0].id }, data: { isPrimary: true } });
  }
  return moved;
}

/**
 * Pool deletion: every server is powered off and preserved (each stop a live change: the pool's
 * event names no server), the block's addresses go back to the datacenter.
 */
export async function releasePool(tx: Tx, provider: ServerProvider, poolId: string, now: Date): Promise<void> {
  for (const server of await tx.server.findMany({ where: { poolId, ...VISIBLE } })) {
    if (
      server.status === 'running' ||
      server.status === 'rebooting' ||
      server.status === 'restoring' ||
      server.status === 'reinstalling'
    ) {
      await provider.power(tx, server.id, 'stop', now);
      await tx.server.update({ where: { id: server.id }, data: { status: 'stopped' } });
    } else if (server.status === 'provisioning') {
      await tx.server.update({ where: { id: server.id }, data: { status: 'stopped', provisionedAt: now } });
    } else continue;
    await announceChange(
      tx,
      server.accountId,
      'server.status.changed',
      { serverId: server.id, status: 'stopped' },
      now,
    );
  }
  const ips = await tx.serverIp.findMany({ where: { poolId }, select: { address: true } });
  await tx.serverIp.deleteMany({ where: { poolId } });
  await provider.releaseAddresses(
    tx,
    ips.map((ip) => ip.address),
    now,
  );
}
