import type { ResponsePath } from 'graphql';
import { builder } from '../../schema/builder.ts';
import {
  accountListEdge,
  connectionAfter,
  connectionArgs,
  connectionOf,
  edge,
  loaderOf,
  nodeKind,
  pageSize,
} from '../../schema/graph.ts';
import { poolIpsOfPools, serversOfPools } from '../servers/graph-reads.ts';
import { nodesQuery, serverFilterArgs, ServerConnection } from '../servers/graph.ts';
import { Server } from '../servers/schema.ts';
import { Pool } from './schema.ts';
import { PoolIp } from './members.schema.ts';
import { listPools, poolsByIds } from './service.ts';

// Capacity pools in the graph: Account.pools, Pool.servers and Pool.ips, and back from a server to its pool.

accountListEdge('pools', 'servers:read', Pool, 'The capacity pools of the account, newest first.', (ctx, page) =>
  listPools(ctx.db, page),
);

builder.objectField(Pool, 'servers', (t) =>
  t.field({
    ...edge('servers:read'),
    type: ServerConnection,
    description: 'The servers inside the pool, newest first.',
    args: { ...connectionArgs(t), ...serverFilterArgs(t) },
    resolve: async (pool, args, ctx, info) => {
      const first = pageSize(args);
      const filter = { status: args.status, search: args.search };
      const after = connectionAfter(args, 'srv');
      // One statement for the servers of every pool of the page (per distinct arguments).
      const loader = loaderOf<string, object[]>(
        ctx,
        `Pool.servers:${JSON.stringify(args)}:${pathKey(info.path)}`,
        (ids) => serversOfPools(ctx.db, ids, filter, { first, after }, nodesQuery(ctx, info, 'Server')),
      );
      return connectionOf((await loader.load(pool.id)) as { id: string }[], first);
    },
  }),
);

builder.objectField(Pool, 'ips', (t) =>
  t.field({
    ...edge('servers:read'),
    type: [PoolIp],
    description: 'Every IPv4 address of the pool block with its PTR and holder.',
    resolve: (pool, _args, ctx) =>
      loaderOf(ctx, 'Pool.ips', (ids: readonly string[]) => poolIpsOfPools(ctx.db, ids)).load(pool.id),
  }),
);

builder.prismaObjectFields(Server, (t) => ({
  pool: t.field({
    ...edge('servers:read'),
    type: Pool,
    description: 'The capacity pool the server lives in; null for a standalone server.',
    resolve: async (server, _args, ctx) => {
      if (!server.poolId) return null;
      const loader = loaderOf(ctx, 'Pool', async (ids: readonly string[]) => {
        const byId = new Map((await poolsByIds(ctx.db, ids)).map((p) => [p.id, p]));
        return ids.map((id) => byId.get(id) ?? null);
      });
      return loader.load(server.poolId);
    },
  }),
}));

/** Where in the response a field sits, list indices left out: the pools of one list share one loader. */
function pathKey(path: ResponsePath): string {
  const keys: string[] = [];
  for (let p: ResponsePath | undefined = path; p; p = p.prev) if (typeof p.key === 'string') keys.push(p.key);
  return keys.reverse().join('.');
}

nodeKind({ prefix: 'pool', typename: 'Pool', scope: 'servers:read', load: (ctx, ids) => poolsByIds(ctx.db, ids) });
