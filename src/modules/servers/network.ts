import type { TenantDb } from '../../db/tenant.ts';
import { badRequest, notFound } from '../../errors.ts';
import { recordEvent } from '../../events/outbox.ts';
import { getServer, refusal, type ServiceContext } from './server-row.ts';
import { normalDnsName } from '../../core/input-schemas.ts';

// A server's addresses and their reverse DNS (PTR) records.

export async function listServerIps(db: TenantDb, serverId: string, query: object = {}) {
  await getServer(db, serverId);
  return db.serverIp.findMany({ ...query, where: { serverId }, orderBy: [{ isPrimary: 'desc' }, { address: 'asc' }] });
}

/**
 * Sets (hostname) or clears (null) the PTR of one of the server's addresses. Idempotent:
 * writing the value already there answers 200 and fires nothing; a change fires
 * `server.ptr.changed` (ptr null when cleared).
 */
export async function setPtr(
  ctx: ServiceContext,
  serverId: string,
  address: string,
  hostname: string | null,
  query: object = {},
) {
  const ptr = hostname === null ? null : normalDnsName(hostname);
  const now = ctx.app.clock.now();
  return ctx.db.$transaction(async (tx) => {
    const server = await getServer(tx, serverId);
    const ip = await tx.serverIp.findFirst({ where: { serverId, address } });
    if (!ip) throw notFound('IP address');
    if (!ip.zoneHosted) {
      throw badRequest(
        `The reverse zone of ${address} is not hosted by the service (zoneHosted: false), so its PTR cannot be managed here; ask the holder of that zone.`,
        'ip',
      );
    }
    if (ip.ptr === ptr) return tx.serverIp.findUniqueOrThrow({ ...query, where: { id: ip.id } });
    await ctx.app.provider.setPtr(tx, address, ptr, now).catch(refusal);
    const updated = await tx.serverIp.update({ ...query, where: { id: ip.id }, data: { ptr } });
    await recordEvent(tx, server.accountId, 'server.ptr.changed', { serverId, ip: address, ptr }, now);
    return updated;
  });
}
