import { createHash } from 'node:crypto';
import type http from 'node:http';
import pg from 'pg';
import type { App } from '../src/app-services.ts';
import { INVOICES_PAGE_DEFAULT } from '../src/modules/billing/invoices.ts';
import { DELIVERY_PAGE_LIMITS } from '../src/modules/webhooks/service.ts';
import { PAGE_DEFAULT } from '../src/core/paging.ts';
import {
  deliveryObject,
  hostingObject,
  invoicePage,
  obj,
  page,
  pageServer,
  poolDetail,
  poolFields,
  serverPageJoins,
  serverPageRelations,
  serverWithSubqueries,
  ticketFields,
  ticketThread,
} from './anchor-sql.ts';

/**
 * The anchor of the read-path scenario (8): what this database can give for a read, written
 * by hand. A bare node:http handler on pg (or, on the embedded database, the same statements
 * through the lean PGlite client the app's Prisma adapter uses, src/db/pglite-fast-client.ts): the key looked up by its hash, then ONE statement that builds
 * the whole response body as JSON text in the database (json_build_object / json_agg), written
 * to the socket as it comes. No Prisma, no GraphQL, no routing layer: the ceiling the API is
 * measured against. The benchmark checks each body equal to the API's (as parsed JSON) before
 * anything is timed.
 */

/** What a route's statement needs beyond the request: the clock and the deployment's hosting host suffix. */
export interface AnchorSite {
  now(): Date;
  /** `.hosting.<host>`: the service hostname of a hosting account after its username. */
  hostingSuffix: string;
  database: 'postgresql' | 'pglite';
}

interface AnchorRoute {
  /** Path under the anchor's prefix, the same as the API's under /v1; capture groups are the path's ids. */
  pattern: RegExp;
  scope: string;
  /** The statement's parameters after the account (`$1`). */
  params: (path: RegExpExecArray, query: URLSearchParams, site: AnchorSite) => unknown[];
  /** The statement, or the fastest of its forms on each database (measured; see the route). */
  sql: string | Record<AnchorSite['database'], string>;
}

/** `$2` the limit (the list's own default), `$3` the cursor. */
const keyset = (fallback: number) => (_path: RegExpExecArray, query: URLSearchParams) => [
  Number(query.get('limit') ?? fallback),
  query.get('cursor'),
];
const byId = (path: RegExpExecArray) => [path[1]];

/** The account's visible servers. */
const SERVERS = `"Server" s WHERE s."accountId" = $1::uuid AND s.status <> 'terminated'`;

const ANCHOR_ROUTES: AnchorRoute[] = [
  {
    pattern: /^\/servers$/,
    scope: 'servers:read',
    params: keyset(PAGE_DEFAULT),
    // PostgreSQL builds this page faster with a subquery per server and relation, PGlite with
    // each relation aggregated once and joined: the anchor is the faster form on each.
    sql: {
      postgresql: page('s', serverWithSubqueries, `SELECT * FROM ${SERVERS}`),
      pglite: page('s', pageServer, `SELECT * FROM ${SERVERS}`, '', {
        ctes: serverPageRelations,
        joins: serverPageJoins,
      }),
    },
  },
  {
    pattern: /^\/servers\/([^/]+)$/,
    scope: 'servers:read',
    params: byId,
    sql: `SELECT ${serverWithSubqueries}::text AS body FROM ${SERVERS} AND s.id = $2::text`,
  },
  {
    pattern: /^\/billing\/invoices$/,
    scope: 'billing:read',
    params: (_path, query) => [Number(query.get('limit') ?? INVOICES_PAGE_DEFAULT), Number(query.get('page') ?? 1)],
    sql: invoicePage,
  },
  {
    pattern: /^\/tickets$/,
    scope: 'tickets:read',
    params: keyset(PAGE_DEFAULT),
    sql: page('t', obj(ticketFields), `SELECT * FROM "Ticket" t WHERE t."accountId" = $1::uuid`),
  },
  {
    pattern: /^\/tickets\/([^/]+)$/,
    scope: 'tickets:read',
    params: byId,
    sql: `SELECT ${ticketThread}::text AS body FROM "Ticket" t WHERE t."accountId" = $1::uuid AND t.id = $2::text`,
  },
  {
    // 404 when the subscription is not the account's (the FROM "Webhook" row), as the API answers.
    pattern: /^\/webhooks\/([^/]+)\/deliveries$/,
    scope: 'webhooks:read',
    params: (path, query) => [...keyset(DELIVERY_PAGE_LIMITS.fallback)(path, query), path[1]],
    sql: page(
      'd',
      deliveryObject,
      `SELECT * FROM "WebhookDelivery" d WHERE d."accountId" = $1::uuid AND d."webhookId" = $4::text`,
      `FROM "Webhook" w WHERE w."accountId" = $1::uuid AND w.id = $4::text`,
    ),
  },
  {
    pattern: /^\/pools$/,
    scope: 'servers:read',
    params: keyset(PAGE_DEFAULT),
    sql: page('p', obj(poolFields), `SELECT * FROM "Pool" p WHERE p."accountId" = $1::uuid AND p.status <> 'deleted'`),
  },
  {
    pattern: /^\/pools\/([^/]+)$/,
    scope: 'servers:read',
    params: byId,
    sql: `SELECT ${poolDetail}::text AS body FROM "Pool" p WHERE p."accountId" = $1::uuid AND p.id = $2::text AND p.status <> 'deleted'`,
  },
  {
    pattern: /^\/hosting$/,
    scope: 'hosting:read',
    params: (path, query, site) => [...keyset(PAGE_DEFAULT)(path, query), site.hostingSuffix],
    sql: page('h', hostingObject, `SELECT * FROM "HostingAccount" h WHERE h."accountId" = $1::uuid`),
  },
];

const KEY_SQL = `SELECT "accountId", scopes, "revokedAt", "expiresAt" FROM "ApiKey" WHERE "keyHash" = $1`;

/** A statement's first row, of the columns the caller names. */
type Run = <Row extends object>(name: string, sql: string, params: unknown[]) => Promise<Row | undefined>;

interface KeyRow {
  accountId: string;
  scopes: string[];
  revokedAt: Date | null;
  expiresAt: Date | null;
}

/** The anchor's database access: a pg pool of the app's size on PostgreSQL, PGlite's own `query` on the embedded one. */
export function anchorDatabase(app: App): { run: Run; close(): Promise<void> } {
  if (app.config.databaseUrl) {
    const pool = new pg.Pool({
      connectionString: app.config.databaseUrl,
      max: app.config.databasePoolSize,
    });
    return {
      // Named, so each connection parses and plans each statement once (as the app does).
      run: async (name, text, values) => (await pool.query({ name, text, values })).rows[0],
      close: () => pool.end(),
    };
  }
  // The lean client the app's Prisma adapter runs on: each statement prepared once, then one call into WebAssembly per execution.
  const embedded = app.db.embedded!;
  return {
    run: async <Row extends object>(_name: string, sql: string, params: unknown[]) =>
      (await embedded.query(sql, params)).rows[0] as Row | undefined,
    close: async () => undefined,
  };
}

/** Serves ANCHOR_ROUTES under `prefix` (mounted beside the app, bench/lib.ts `mountBeside`). */
export function anchorHandler(run: Run, prefix: string, site: AnchorSite): http.RequestListener {
  const send = (res: http.ServerResponse, status: number, body: string) =>
    res
      .writeHead(status, {
        'Content-Type': 'application/json; charset=utf-8',
        'Content-Length': Buffer.byteLength(body),
      })
      .end(body);
  return async (req, res) => {
    try {
      const url = new URL(req.url ?? '/', 'http://x');
      const path = url.pathname.slice(prefix.length);
      const index = ANCHOR_ROUTES.findIndex((r) => r.pattern.test(path));
      if (index < 0) return send(res, 404, '{"statusCode":404}');
      const route = ANCHOR_ROUTES[index];
      const token = /^Bearer (svc_[A-Za-z0-9]{40})$/.exec(req.headers.authorization ?? '')?.[1];
      const key =
        token && (await run<KeyRow>('anchor_key', KEY_SQL, [createHash('sha256').update(token).digest('hex')]));
      if (!key || key.revokedAt || (key.expiresAt && key.expiresAt <= site.now()))
        return send(res, 401, '{"statusCode":401}');
      if (!key.scopes.includes(route.scope)) return send(res, 403, '{"statusCode":403}');
      const params = [key.accountId, ...route.params(route.pattern.exec(path)!, url.searchParams, site)];
      const row = await run<{ body: string }>(
        `anchor_${index}`,
        typeof route.sql === 'string' ? route.sql : route.sql[site.database],
        params,
      );
      if (!row) return send(res, 404, '{"statusCode":404}');
      send(res, 200, row.body);
    } catch (err) {
      send(res, 500, JSON.stringify({ statusCode: 500, message: String(err) }));
    }
  };
}
