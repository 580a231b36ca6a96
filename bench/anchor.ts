import { createHash } from 'node:crypto';
import type http from 'node:http';
import pg from 'pg';
import type { App } from '../src/app-services.ts';

/**
 * The anchor of the read-path scenario (8): what this database can give for a read, written
 * by hand. A bare node:http handler on pg (or, on the embedded database, the same statements
 * through the lean PGlite client the app's Prisma adapter uses, src/db/pglite-fast-client.ts): the key looked up by its hash, then ONE statement that builds
 * the whole response body as JSON text in the database (json_build_object / json_agg), written
 * to the socket as it comes. No Prisma, no GraphQL, no routing layer: the ceiling the API is
 * measured against. The benchmark checks each body equal to the API's (as parsed JSON) before
 * anything is timed.
 */

/** A timestamptz as the API writes it (`Date#toISOString`): UTC, milliseconds, `Z`. */
const iso = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
/** `json_build_object` from a map of JSON keys to SQL expressions. */
const obj = (fields: Record<string, string>) => `json_build_object(${Object.entries(fields).map(([k, v]) => `'${k}', ${v}`).join(', ')})`;
/** A JSON array of `item` over `from` (a FROM … WHERE … tail), `[]` when empty. */
const arr = (item: string, from: string, orderBy: string) => `COALESCE((SELECT json_agg(${item} ORDER BY ${orderBy}) FROM ${from}), '[]'::json)`;

const serverObject = obj({
  id: 's.id',
  label: 's.label',
  status: 's.status',
  productId: 's."productId"',
  vcpu: 's.vcpu',
  ramMb: 's."ramMb"',
  diskGb: 's."diskGb"',
  os: 's.os',
  osTemplate: 's."osTemplate"',
  suspendReason: 's."suspendReason"',
  poolId: 's."poolId"',
  renewsAt: iso('s."paidUntil"'),
  ips: arr(obj({ ip: 'i.address', version: 'i.version', ptr: 'i.ptr', zoneHosted: 'i."zoneHosted"', primary: 'i."isPrimary"' }), `"ServerIp" i WHERE i."serverId" = s.id`, 'i."isPrimary" DESC, i.address'),
  snapshots: arr(
    obj({ id: 'n.id', serverId: 'n."serverId"', name: 'n.name', description: 'n.description', status: 'n.status', sizeGb: 'n."sizeGb"', createdAt: iso('n."createdAt"') }),
    `"Snapshot" n WHERE n."serverId" = s.id`,
    'n.id DESC',
  ),
  addons: arr(
    obj({ id: 'a.id', addonId: 'a."productId"', type: 'a.type', monthlyUsdCents: 'a."monthlyUsdCents"', attachedAt: iso('a."createdAt"') }),
    `"ServerAddon" a WHERE a."serverId" = s.id AND a."endedAt" IS NULL`,
    'a.id',
  ),
  createdAt: iso('s."createdAt"'),
  provisionedAt: iso('s."provisionedAt"'),
});

/**
 * A keyset page as the API answers it (`{data, hasMore, nextCursor}`, newest first): `rows` is
 * a SELECT of the list's rows aliased `s` with `$1` the account, `$2` the limit, `$3` the cursor.
 */
const page = (item: string, rows: string) => `
  WITH more AS (${rows} AND ($3::text IS NULL OR s.id < $3) ORDER BY s.id DESC LIMIT $2::int + 1),
       s AS (SELECT * FROM more ORDER BY id DESC LIMIT $2::int)
  SELECT ${obj({
    data: `COALESCE((SELECT json_agg(${item} ORDER BY s.id DESC) FROM s), '[]'::json)`,
    hasMore: '(SELECT count(*) FROM more) > $2::int',
    nextCursor: 'CASE WHEN (SELECT count(*) FROM more) > $2::int THEN (SELECT min(id) FROM s) END',
  })}::text AS body`;

export interface AnchorRoute {
  /** Path under the anchor's prefix: `servers` (a page) or `servers/:id` (one). */
  pattern: RegExp;
  scope: string;
  sql: string;
}

export const ANCHOR_ROUTES: AnchorRoute[] = [
  {
    pattern: /^\/servers$/,
    scope: 'servers:read',
    sql: page(serverObject, `SELECT * FROM "Server" s WHERE s."accountId" = $1::uuid AND s.status <> 'terminated'`),
  },
  {
    pattern: /^\/servers\/([^/]+)$/,
    scope: 'servers:read',
    sql: `SELECT ${serverObject}::text AS body FROM "Server" s WHERE s."accountId" = $1::uuid AND s.id = $2 AND s.status <> 'terminated'`,
  },
];

const KEY_SQL = `SELECT "accountId", scopes, "revokedAt", "expiresAt" FROM "ApiKey" WHERE "keyHash" = $1`;

type Run = (name: string, sql: string, params: unknown[]) => Promise<Record<string, any> | undefined>;

/** The anchor's database access: a pg pool of the app's size on PostgreSQL, PGlite's own `query` on the embedded one. */
export function anchorDatabase(app: App): { run: Run; close(): Promise<void> } {
  if (app.config.databaseUrl) {
    const pool = new pg.Pool({ connectionString: app.config.databaseUrl, max: Number(process.env.DATABASE_POOL_SIZE ?? 10) });
    return {
      // Named, so each connection parses and plans each statement once (as the app does).
      run: async (name, text, values) => (await pool.query({ name, text, values })).rows[0],
      close: () => pool.end(),
    };
  }
  // The lean client the app's Prisma adapter runs on: each statement prepared once, then one call into WebAssembly per execution.
  const embedded = app.db.embedded!;
  return { run: async (_name, sql, params) => (await embedded.query(sql, params)).rows[0] as Record<string, any> | undefined, close: async () => undefined };
}

/** Serves ANCHOR_ROUTES under `prefix` (mounted beside the app, bench/lib.ts `mountBeside`). */
export function anchorHandler(run: Run, prefix: string, now: () => Date): http.RequestListener {
  const send = (res: http.ServerResponse, status: number, body: string) =>
    res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body) }).end(body);
  return async (req, res) => {
    try {
      const url = new URL(req.url ?? '/', 'http://x');
      const path = url.pathname.slice(prefix.length);
      const index = ANCHOR_ROUTES.findIndex((r) => r.pattern.test(path));
      if (index < 0) return send(res, 404, '{"statusCode":404}');
      const route = ANCHOR_ROUTES[index];
      const token = /^Bearer (svc_[A-Za-z0-9]{40})$/.exec(req.headers.authorization ?? '')?.[1];
      const key = token && (await run('anchor_key', KEY_SQL, [createHash('sha256').update(token).digest('hex')]));
      if (!key || key.revokedAt || (key.expiresAt && key.expiresAt <= now())) return send(res, 401, '{"statusCode":401}');
      if (!key.scopes.includes(route.scope)) return send(res, 403, '{"statusCode":403}');
      const id = route.pattern.exec(path)![1];
      const params = id !== undefined ? [key.accountId, id] : [key.accountId, Number(url.searchParams.get('limit') ?? 50), url.searchParams.get('cursor')];
      const row = await run(`anchor_${index}`, route.sql, params);
      if (!row) return send(res, 404, '{"statusCode":404}');
      send(res, 200, row.body);
    } catch (err) {
      send(res, 500, JSON.stringify({ statusCode: 500, message: String(err) }));
    }
  };
}
