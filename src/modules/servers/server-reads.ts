import { asModelRow } from '../../db/model-rows.ts';
import { tenantRows, tenantStatement, type TenantDb } from '../../db/tenant.ts';
import { notFound } from '../../errors.ts';
import type { Prisma, Server, ServerAddon, ServerIp, Snapshot } from '../../generated/prisma/client.ts';
import { paginate, type PageArgs } from '../../schema/pagination.ts';
import { getServer } from './server-row.ts';

// The hot reads of servers (GET /v1/servers, GET /v1/servers/:id and their GraphQL fields) as
// one hand-written statement each: the rows come back as JSON built in the database and are
// handed to Pothos shaped exactly as Prisma's findMany with the relations included would build
// them, so field selection, scopes and errors stay where they are. Prisma's own result mapping
// of the nested rows was the largest cost of these reads (README: Read path).
// test/servers/server-reads.test.ts proves each returns exactly what the Prisma path returns.

/** The relations a server carries, as the Server type's fields load them (schema.ts). */
export const SERVER_RELATIONS = {
  ips: { orderBy: [{ isPrimary: 'desc' }, { address: 'asc' }] },
  snapshots: { orderBy: { id: 'desc' } },
  addons: { where: { endedAt: null }, orderBy: { id: 'asc' } },
} satisfies { ips: Prisma.Server$ipsArgs; snapshots: Prisma.Server$snapshotsArgs; addons: Prisma.Server$addonsArgs };

export type ServerWithRelations = Server & { ips: ServerIp[]; snapshots: Snapshot[]; addons: ServerAddon[] };

/** The same relations in SQL, for a server row aliased `s`; each also bound to the account. */
const RELATIONS_SQL = `
  COALESCE((SELECT json_agg(i ORDER BY i."isPrimary" DESC, i.address ASC) FROM "ServerIp" i WHERE i."serverId" = s.id AND i."accountId" = $1::uuid), '[]') AS ips,
  COALESCE((SELECT json_agg(n ORDER BY n.id DESC) FROM "Snapshot" n WHERE n."serverId" = s.id AND n."accountId" = $1::uuid), '[]') AS snapshots,
  COALESCE((SELECT json_agg(a ORDER BY a.id ASC) FROM "ServerAddon" a WHERE a."serverId" = s.id AND a."accountId" = $1::uuid AND a."endedAt" IS NULL), '[]') AS addons`;

/** A page of the account's visible servers, newest first: `$2` rows (the page and one more), below the cursor `$3`. */
const SERVER_PAGE = tenantStatement(`
  SELECT row_to_json(s) AS server, ${RELATIONS_SQL}
  FROM "Server" s
  WHERE s."accountId" = $1::uuid AND s.status <> 'terminated' AND ($3::text IS NULL OR s.id < $3::text)
  ORDER BY s.id DESC
  LIMIT $2::int`);

/** One visible server of the account by id (`$2`). */
const SERVER_BY_ID = tenantStatement(`
  SELECT row_to_json(s) AS server, ${RELATIONS_SQL}
  FROM "Server" s
  WHERE s."accountId" = $1::uuid AND s.id = $2::text AND s.status <> 'terminated'`);

type Row = { server: Record<string, unknown>; ips: unknown[]; snapshots: unknown[]; addons: unknown[] };
const toServer = (row: Row) => asModelRow<ServerWithRelations>('Server', { ...row.server, ips: row.ips, snapshots: row.snapshots, addons: row.addons });

/**
 * Whether the statements above answer a Prisma query Pothos planned for a Server selection:
 * every relation it asks for is one of SERVER_RELATIONS, asked for with nothing nested below it
 * (they return every scalar, so any scalar selection is answered).
 */
export function answeredByServerReads(query: { include?: Record<string, unknown>; select?: Record<string, unknown> }): boolean {
  const asked = { ...query.select, ...query.include };
  return Object.entries(asked).every(([name, value]) => {
    if (!value || typeof value !== 'object') return name !== '_count';
    if (!(name in SERVER_RELATIONS)) return false;
    const nested = value as { include?: object; select?: Record<string, unknown> };
    return !nested.include && Object.values(nested.select ?? {}).every((v) => v === true);
  });
}

/** A page of servers with their relations, in one statement. */
export function listServersWithRelations(db: TenantDb, args: PageArgs) {
  return paginate(args, async (page) => (await tenantRows<Row>(db, SERVER_PAGE, page.take, page.where.id?.lt ?? null)).map(toServer));
}

/** One server with its relations, in one statement; 404 when the account has no such visible server. */
export async function getServerWithRelations(db: TenantDb, id: string): Promise<ServerWithRelations> {
  const [row] = await tenantRows<Row>(db, SERVER_BY_ID, id);
  if (!row) throw notFound('Server');
  return toServer(row);
}

/** The `server` field's read: the statement when it answers the planned query, Prisma otherwise. */
export function readServer(db: TenantDb, id: string, query: object) {
  return answeredByServerReads(query) ? getServerWithRelations(db, id) : getServer(db, id, query);
}
