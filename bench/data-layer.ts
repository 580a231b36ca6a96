import type http from 'node:http';
import type { App } from '../src/app-services.ts';
import { tenantClient, type TenantDb } from '../src/db/tenant.ts';
import { admit } from '../src/http/admission/admit.ts';
import { getServerWithRelations, listServersWithRelations } from '../src/modules/servers/server-reads.ts';
import { serverBody, serversPageBody } from './raw-baseline.ts';

/**
 * The read-path scenario's (8) third side for the server reads: the API without its GraphQL
 * machinery. The app's own first step (`admit`: the credential through the principal cache,
 * the rate limit), then the same statement the `servers` and `server` fields run
 * (servers/server-reads.ts), its rows as Pothos receives them, and the REST body written by
 * hand. What REST adds to this (sofa's handler, envelop and its plugins, Pothos's query plan and
 * field resolvers, graphql-jit, the Fetch objects, the ETag) is the platform's per-request cost,
 * measured apart from the database's. Served under `prefix`: `/servers` and `/servers/:id`.
 */
export function dataLayerHandler(app: App, prefix: string): http.RequestListener {
  return async (req, res) => {
    try {
      const { principal, refusal } = await admit(app, req);
      if (refusal || !principal) throw refusal ?? new Error('no credential');
      const url = new URL(req.url ?? '/', 'http://x');
      const id = /^\/servers\/([^/]+)$/.exec(url.pathname.slice(prefix.length))?.[1];
      const db = tenantClient(app.prisma, principal.accountId);
      const body = id
        ? await serverJson(db, id)
        : serversPageBody(await listServersWithRelations(db, { limit: Number(url.searchParams.get('limit') ?? 50) }));
      res
        .writeHead(200, {
          'Content-Type': 'application/json; charset=utf-8',
          'Content-Length': Buffer.byteLength(body),
        })
        .end(body);
    } catch (err) {
      res.writeHead(500).end(String(err));
    }
  };
}

/**
 * One server through the data layer alone: the statement, its rows, the REST body as JSON text.
 * @public for bench/profile-machinery.ts, a script knip does not reach.
 */
export async function serverJson(db: TenantDb, id: string): Promise<string> {
  return JSON.stringify(serverBody(await getServerWithRelations(db, id)));
}
