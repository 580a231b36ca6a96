import { builder } from '../../schema/builder.ts';
import {
  accountListEdge,
  connectionAfter,
  connectionArgs,
  connectionOf,
  edge,
  LOADER_OPTIONS,
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
  t.loadable({
    ...edge('servers:read'),
    type: ServerConnection,
    description: 'The servers inside the pool, newest first.',
    args: { ...connectionArgs(t), ...serverFilterArgs(t) },
    // One statement for the servers of every pool at this place in the query (its arguments are that place's).
    byPath: true,
    loaderOptions: LOADER_OPTIONS,
    resolve: (pool) => pool.id,
    load: async (ids: string[], ctx, args, info) => {
      const first = pageSize(args);
      const filter = { status: args.status, search: args.search };
      const after = connectionAfter(args, 'srv');
      const groups = await serversOfPools(ctx.db, ids, filter, { first, after }, nodesQuery(ctx, info, 'Server'));
      return groups.map((rows) => connectionOf(rows as { id: string }[], first, undefined, args.after));
    },
  }),
);

builder.objectField(Pool, 'ips', (t) =>
  t.loadableList({
    ...edge('servers:read'),
    type: PoolIp,
    description: 'Every IPv4 address of the pool block with its PTR and holder.',
    loaderOptions: LOADER_OPTIONS,
    resolve: (pool) => pool.id,
    load: (ids, ctx) => poolIpsOfPools(ctx.db, ids),
  }),
);

builder.prismaObjectFields(Server, (t) => ({
  pool: t.loadable({
    ...edge('servers:read'),
    type: Pool,
    description: 'The capacity pool the server lives in; null for a standalone server.',
    loaderOptions: LOADER_OPTIONS,
    // Rows in any order, matched to the ids by id; no pool id answers null without a load.
    sort: (p) => p.id,
    resolve: (server) => server.poolId,
    load: (ids, ctx) => poolsByIds(ctx.db, ids),
  }),
}));
