import type { TenantDb } from '../../db/tenant.ts';
import { groupBy } from '../../core/paging.ts';
import { VISIBLE } from './server-row.ts';

/** Filters of a server connection (docs/REFERENCE.md: The graph). */
export interface ServerFilter {
  status?: string | null;
  poolId?: string | null;
  /** Case-insensitive part of the label. */
  search?: string | null;
}

function serverWhere(f: ServerFilter) {
  return {
    AND: [
      VISIBLE,
      ...(f.status ? [{ status: f.status }] : []),
      ...(f.poolId ? [{ poolId: f.poolId }] : []),
      ...(f.search ? [{ label: { contains: f.search, mode: 'insensitive' as const } }] : []),
    ],
  };
}

const after = (cursor: string | null | undefined) => (cursor ? [{ id: { lt: cursor } }] : []);

/** One page of the account's servers, newest first, one row beyond the page (`query`: the prisma plugin's selection). */
export function serverPage(
  db: TenantDb,
  f: ServerFilter,
  page: { first: number; after?: string | null },
  query: object = {},
) {
  return db.server.findMany({
    ...query,
    where: { AND: [serverWhere(f), ...after(page.after)] },
    orderBy: { id: 'desc' },
    take: page.first + 1,
  });
}

export function countServers(db: TenantDb, f: ServerFilter) {
  return db.server.count({ where: serverWhere(f) });
}

/**
 * The servers of several pools in one statement, grouped per pool, each group cut to one row
 * beyond the page (the statement reads every matching server of those pools).
 */
export async function serversOfPools(
  db: TenantDb,
  poolIds: readonly string[],
  f: ServerFilter,
  page: { first: number; after?: string | null },
  query: object = {},
) {
  const rows = await db.server.findMany({
    ...query,
    where: { AND: [serverWhere(f), { poolId: { in: [...poolIds] } }, ...after(page.after)] },
    orderBy: { id: 'desc' },
  });
  return groupBy(poolIds, rows, (r) => r.poolId!).map((g) => g.slice(0, page.first + 1));
}

function ipNum(address: string): number {
  return address.split('.').reduce((n, o) => n * 256 + Number(o), 0);
}

/** The addresses of several pools' blocks in one statement, grouped per pool, as GET /pools/:id/ips lists them. */
export async function poolIpsOfPools(db: TenantDb, poolIds: readonly string[]) {
  const rows = await db.serverIp.findMany({ where: { poolId: { in: [...poolIds] } } });
  rows.sort((a, b) => ipNum(a.address) - ipNum(b.address));
  return groupBy(poolIds, rows, (r) => r.poolId!).map((g) =>
    g.map((r) => ({ ip: r.address, version: r.version, ptr: r.ptr, zoneHosted: r.zoneHosted, assignedTo: r.serverId })),
  );
}
