import { asModelRow } from '../../db/model-rows.ts';
import { tenantRows, tenantStatement, type TenantDb } from '../../db/tenant.ts';
import { notFound } from '../../errors.ts';
import type { Prisma, Server, ServerAddon, ServerIp, Snapshot } from '../../generated/prisma/client.ts';
import { ID_PREFIX } from '../../db/ids.ts';
import { paginate, type PageArgs } from '../../core/paging.ts';
import { getServer, visibleServerSql } from './server-row.ts';

// The hot reads of servers (GET /v1/servers, GET /v1/servers/:id and their GraphQL fields) as
// one hand-written statement each: the rows come back as JSON built in the database and are
// handed to Pothos shaped exactly as Prisma's findMany with the relations included would build
// them, so field selection, scopes and errors stay where they are. Prisma's own result mapping
// of the nested rows was the largest cost of these reads (bench/README.md: Read path).
// test/servers/server-reads.test.ts proves each returns exactly what the Prisma path returns.

/** The relations a server carries, as the Server type's fields load them (schema.ts). */
export const SERVER_RELATIONS = {
  ips: { orderBy: [{ isPrimary: 'desc' }, { address: 'asc' }] },
  snapshots: { orderBy: { id: 'desc' } },
  addons: { where: { endedAt: null }, orderBy: { id: 'asc' } },
} satisfies { ips: Prisma.Server$ipsArgs; snapshots: Prisma.Server$snapshotsArgs; addons: Prisma.Server$addonsArgs };

export type ServerWithRelations = Server & { ips: ServerIp[]; snapshots: Snapshot[]; addons: ServerAddon[] };

/** The same relations in SQL, on their tables aliased `r`; each is also bound to the account. */
const RELATIONS_SQL = [
  { name: 'ips', table: 'ServerIp', orderBy: 'r."isPrimary" DESC, r.address ASC', condition: '' },
  { name: 'snapshots', table: 'Snapshot', orderBy: 'r.id DESC', condition: '' },
  { name: 'addons', table: 'ServerAddon', orderBy: 'r.id ASC', condition: ' AND r."endedAt" IS NULL' },
] as const;

const VISIBLE_SERVERS = `"Server" s WHERE s."accountId" = $1::uuid AND ${visibleServerSql('s')}`;

/**
 * A page of the account's visible servers, newest first (`$2` rows: the page and one more,
 * below the cursor `$3`), as one row: the servers as a JSON array, each relation a JSON object
 * of arrays by server id. Each relation is read once for the whole page (`= ANY` of its ids: an
 * index lookup with or without the planner's statistics); a subquery per server and relation
 * costs an executor start each, which was most of a page's time on PostgreSQL.
 */
const SERVER_PAGE = tenantStatement(`
  WITH s AS (SELECT * FROM ${VISIBLE_SERVERS} AND ($3::text IS NULL OR s.id < $3::text) ORDER BY s.id DESC LIMIT $2::int)
  SELECT COALESCE((SELECT json_agg(s ORDER BY s.id DESC) FROM s), '[]') AS servers,
  ${RELATIONS_SQL.map(
    ({ name, table, orderBy, condition }) => `
    (SELECT json_object_agg(g."serverId", g.rows) FROM (
       SELECT r."serverId", json_agg(r ORDER BY ${orderBy}) AS rows FROM "${table}" r
       WHERE r."serverId" = ANY(ARRAY(SELECT id FROM s)) AND r."accountId" = $1::uuid${condition}
       GROUP BY r."serverId") g) AS ${name}`,
  ).join(',')}`);

/** One visible server of the account by id (`$2`), its relations as subqueries: for one row, cheaper than the page's grouping. */
const SERVER_BY_ID = tenantStatement(`
  SELECT row_to_json(s) AS server,
  ${RELATIONS_SQL.map(
    ({ name, table, orderBy, condition }) => `
    COALESCE((SELECT json_agg(r ORDER BY ${orderBy}) FROM "${table}" r WHERE r."serverId" = s.id AND r."accountId" = $1::uuid${condition}), '[]') AS ${name}`,
  ).join(',')}
  FROM ${VISIBLE_SERVERS} AND s.id = $2::text`);

type Relations<T> = { ips: T; snapshots: T; addons: T };
type Page = { servers: Record<string, unknown>[] } & Relations<Record<string, unknown[]> | null>;
type One = { server: Record<string, unknown> } & Relations<unknown[]>;

/** A server row with its relations' rows, as Prisma's findMany with SERVER_RELATIONS included returns it. */
function withRelations(
  server: Record<string, unknown>,
  relations: Relations<unknown[] | undefined>,
): ServerWithRelations {
  server.ips = relations.ips ?? [];
  server.snapshots = relations.snapshots ?? [];
  server.addons = relations.addons ?? [];
  return asModelRow<ServerWithRelations>('Server', server);
}

function serversOf({ servers, ips, snapshots, addons }: Page): ServerWithRelations[] {
  return servers.map((server) => {
    const id = server.id as string;
    return withRelations(server, { ips: ips?.[id], snapshots: snapshots?.[id], addons: addons?.[id] });
  });
}

/**
 * Whether the statements above answer a Prisma query Pothos planned for a Server selection:
 * every relation it asks for is one of SERVER_RELATIONS, asked for with nothing nested below it
 * (they return every scalar, so any scalar selection is answered).
 */
export function answeredByServerReads(query: {
  include?: Record<string, unknown>;
  select?: Record<string, unknown>;
}): boolean {
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
  return paginate(args, ID_PREFIX.server, async (page) =>
    serversOf((await tenantRows<Page>(db, SERVER_PAGE, page.take, page.where.id?.lt ?? null))[0]),
  );
}

/** One server with its relations, in one statement; 404 when the account has no such visible server. */
export async function getServerWithRelations(db: TenantDb, id: string): Promise<ServerWithRelations> {
  const [row] = await tenantRows<One>(db, SERVER_BY_ID, id);
  if (!row) throw notFound('Server');
  return withRelations(row.server, row);
}

/** The `server` field's read: the statement when it answers the planned query, Prisma otherwise. */
export function readServer(db: TenantDb, id: string, query: object) {
  return answeredByServerReads(query) ? getServerWithRelations(db, id) : getServer(db, id, query);
}
