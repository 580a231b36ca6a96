import { asModelRow } from '../../db/model-rows.ts';
import { tenantRows, tenantStatement, type TenantDb } from '../../db/tenant.ts';
import type { Pool, Product } from '../../generated/prisma/client.ts';
import { visibleServerSql } from '../servers/server-row.ts';

// The pool detail's read (GET /v1/pools/:id and the `pool` field) as one hand-written statement,
// as the server reads do (servers/server-reads.ts): the pool row, its catalogue product, its
// usage and its servers with their addresses, built as JSON in the database. Each part is what
// the Prisma reads of service.ts `detail` return; test/pools/pool-read.test.ts holds them equal.

/** Servers count toward a pool until terminated (servers/server-row.ts); pools are visible until deleted. */
const POOL_DETAIL_SELECT = `
  SELECT p.id, row_to_json(p) AS pool,
    (SELECT row_to_json(x) FROM "Product" x WHERE x.id = p."productId" AND x.kind = 'pool') AS product,
    (SELECT json_build_object('vcpu', COALESCE(sum(s.vcpu), 0), 'ramMb', COALESCE(sum(s."ramMb"), 0), 'diskGb', COALESCE(sum(s."diskGb"), 0), 'servers', count(*))
       FROM "Server" s WHERE s."poolId" = p.id AND s."accountId" = $1::uuid AND ${visibleServerSql('s')}) AS usage,
    (SELECT count(*)::int FROM "ServerIp" i WHERE i."poolId" = p.id AND i."accountId" = $1::uuid AND i."serverId" IS NOT NULL) AS "ipsHeld",
    COALESCE((
      SELECT json_agg(json_build_object(
        'id', s.id, 'label', s.label, 'status', s.status, 'productId', s."productId", 'vcpu', s.vcpu, 'ramMb', s."ramMb", 'diskGb', s."diskGb", 'os', s.os, 'osTemplate', s."osTemplate",
        'ips', COALESCE((SELECT json_agg(i.address ORDER BY i.address ASC) FROM "ServerIp" i WHERE i."serverId" = s.id AND i."accountId" = $1::uuid), '[]')
      ) ORDER BY s.id ASC)
      FROM "Server" s WHERE s."poolId" = p.id AND s."accountId" = $1::uuid AND ${visibleServerSql('s')}), '[]') AS servers
  FROM "Pool" p
  WHERE p."accountId" = $1::uuid AND p.status <> 'deleted'`;

/** One pool (`$2`). */
const POOL_DETAIL = tenantStatement(`${POOL_DETAIL_SELECT} AND p.id = $2::text`);
/** The pools of `$2` (an array of ids), for the graph's loaders: every pool of a page in one statement. */
const POOL_DETAILS = tenantStatement(`${POOL_DETAIL_SELECT} AND p.id = ANY($2::text[])`);
/** The first `$2` pools, oldest first. */
const FIRST_POOL_DETAILS = tenantStatement(`${POOL_DETAIL_SELECT} ORDER BY p.id ASC LIMIT $2::int`);

export interface PoolDetailRow {
  pool: Pool;
  product: Product | null;
  usage: { vcpu: number; ramMb: number; diskGb: number; ips: number; servers: number };
  servers: {
    id: string;
    label: string;
    status: string;
    productId: string;
    vcpu: number;
    ramMb: number;
    diskGb: number;
    os: string;
    osTemplate: string;
    ips: string[];
  }[];
}

type Row = {
  id: string;
  pool: Record<string, unknown>;
  product: Record<string, unknown> | null;
  usage: Omit<PoolDetailRow['usage'], 'ips'>;
  ipsHeld: number;
  servers: PoolDetailRow['servers'];
};

/** A visible pool of the account with its product, usage and servers, in one statement; null when there is none. */
export async function readPoolDetail(db: TenantDb, id: string): Promise<PoolDetailRow | null> {
  const [row] = await tenantRows<Row>(db, POOL_DETAIL, id);
  return row ? detailRow(row) : null;
}

/** The visible pools of these ids with their details, in one statement, by id (a missing id is absent). */
export async function readPoolDetails(db: TenantDb, ids: readonly string[]): Promise<Map<string, PoolDetailRow>> {
  const rows = await tenantRows<Row>(db, POOL_DETAILS, [...ids]);
  return new Map(rows.map((row) => [row.id, detailRow(row)]));
}

/** The account's first `take` visible pools, oldest first, with their details. */
export async function readFirstPoolDetails(db: TenantDb, take: number): Promise<PoolDetailRow[]> {
  return (await tenantRows<Row>(db, FIRST_POOL_DETAILS, take)).map(detailRow);
}

function detailRow(row: Row): PoolDetailRow {
  const { vcpu, ramMb, diskGb, servers } = row.usage;
  return {
    pool: asModelRow<Pool>('Pool', row.pool),
    product: row.product && asModelRow<Product>('Product', row.product),
    usage: { vcpu, ramMb, diskGb, ips: row.ipsHeld, servers },
    servers: row.servers,
  };
}
