import type { TenantDb } from '../../db/tenant.ts';
import { badRequest } from '../../errors.ts';
import { recordEvent } from '../../events/outbox.ts';
import { resolveServerOrder } from '../catalogue/service.ts';
import * as servers from '../servers/pool-members.ts';
import { getServer, type ServiceContext } from '../servers/server-row.ts';
import { findPool, lockPool, POOL_SERVER_OS_FAMILIES, resolved, unitsOf } from './service.ts';

// Servers and addresses inside a pool: creating a server in it, assigning the block's addresses.

export const MAX_POOL_SERVER_IPS = 64;

/**
 * A free server inside the pool, checked against the pool quota (not the balance): 400 when
 * the pool lacks vCPU, RAM, disk or free addresses. Linux only. ipCount public addresses
 * from the block (default 1; 0 = private-only): taking them fires `pool.ips.changed` now, the
 * server's own `server.created` fires when provisioning completes.
 */
export async function createServerInPool(
  ctx: ServiceContext,
  poolId: string,
  input: { productId: unknown; label: string; os: unknown; osTemplate: unknown; ipCount?: number },
  query: object = {},
) {
  const label = String(input.label).trim();
  const ipCount = input.ipCount ?? 1;
  const { product, template } = await resolveServerOrder(ctx.db, input);
  if (!(POOL_SERVER_OS_FAMILIES as readonly string[]).includes(template.os))
    throw badRequest('Servers inside a capacity pool run Linux only.', 'osTemplate');
  const now = ctx.app.clock.now();
  return ctx.db.$transaction(async (tx) => {
    const pool = await lockPool(tx, poolId);
    const usage = await servers.poolUsage(tx, poolId);
    const quota = resolved(unitsOf(pool));
    const need = { vcpu: product.vcpu, ramMb: product.ramMb, diskGb: product.diskGb };
    const short = (['vcpu', 'ramMb', 'diskGb'] as const).filter((k) => usage[k] + need[k] > quota[k]);
    if (short.length) {
      throw badRequest(
        `The pool quota does not fit ${product.id}: ${short.map((k) => `${k} needs ${need[k]}, ${quota[k] - usage[k]} free`).join('; ')}. Resize the pool first.`,
        'productId',
      );
    }
    const free = (await servers.listPoolIps(tx, poolId)).filter((ip) => ip.assignedTo === null);
    if (free.length < ipCount)
      throw badRequest(`The pool has ${free.length} free addresses; ${ipCount} asked.`, 'ipCount');
    const { server } = await servers.createPoolServer(
      tx,
      ctx.app.provider,
      {
        accountId: pool.accountId,
        poolId,
        label,
        productId: product.id,
        os: template.os,
        osTemplate: template.id,
        addresses: free.slice(0, ipCount).map((ip) => ip.ip),
      },
      now,
    );
    if (ipCount > 0)
      await recordEvent(tx, pool.accountId, 'pool.ips.changed', { poolId, assigned: ipCount, freed: 0 }, now);
    return getServer(tx, server.id, query);
  });
}

export async function listPoolIps(db: TenantDb, poolId: string) {
  await findPool(db, poolId);
  return servers.listPoolIps(db, poolId);
}

export const MAX_IP_CHANGES = 1024;

/**
 * Assigns, moves or returns pool addresses in one batch, atomically. The whole batch is
 * refused (400, naming the entry) when any entry names an address outside the pool's block,
 * a server that is not in this pool, or an address twice. Free; the guest OS is not reconfigured.
 * One `pool.ips.changed` counts what the batch assigned and freed; none when nothing moved.
 */
export async function applyPoolIps(
  ctx: ServiceContext,
  poolId: string,
  changes: { ip: string; serverId?: string | null }[],
) {
  const now = ctx.app.clock.now();
  return ctx.db.$transaction(async (tx) => {
    const pool = await lockPool(tx, poolId);
    const block = new Set((await servers.listPoolIps(tx, poolId)).map((ip) => ip.ip));
    const members = new Set((await servers.poolServers(tx, poolId)).map((s) => s.id));
    const seen = new Set<string>();
    const clean = changes.map((c, i) => {
      const serverId = c.serverId ?? null;
      if (!block.has(c.ip))
        throw badRequest(
          `changes[${i}].ip: ${c.ip} is not an address of this pool's block; nothing was applied.`,
          `changes[${i}].ip`,
        );
      if (seen.has(c.ip))
        throw badRequest(
          `changes[${i}].ip: ${c.ip} appears twice in the batch; nothing was applied.`,
          `changes[${i}].ip`,
        );
      seen.add(c.ip);
      if (serverId !== null && !members.has(serverId))
        throw badRequest(
          `changes[${i}].serverId: ${serverId} is not a server of this pool; nothing was applied.`,
          `changes[${i}].serverId`,
        );
      return { ip: c.ip, serverId };
    });
    const moved = await servers.routePoolIps(tx, ctx.app.provider, poolId, clean, now);
    // A batch that leaves every address where it was changed nothing.
    if (moved.assigned + moved.freed > 0)
      await recordEvent(tx, pool.accountId, 'pool.ips.changed', { poolId, ...moved }, now);
    return servers.listPoolIps(tx, poolId);
  });
}
